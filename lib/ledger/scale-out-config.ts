/**
 * Which backend a process runs on (issue 21 §2): `LINEAGE_DATABASE_URL` / `--database-url`
 * (postgres://…) selects PostgreSQL, `LINEAGE_BLOB_URL` / `--blob-url` (s3://…) selects S3
 * (s3-config.ts), a flag over its variable. With both set no process may keep state on local
 * disk that another needs, so the URL-signing secret must come from `LINEAGE_SECRET` (64 hex
 * characters, the format of the embedded `<data>/server-secret`) and is then required.
 */
import { z } from 'zod';
import { DEFAULT_PG_READ_TIMEOUT_MS, pgOptionsProblem, urlTimeSettings } from '@/db/pg/connect-timeout';
import { s3SettingsFrom, type S3Settings } from './s3-config';

export interface ScaleOutConfig {
  /** null: the embedded SQLite database of the data directory. */
  databaseUrl: string | null;
  /** null: the embedded filesystem blob store. */
  blobs: S3Settings | null;
  /** null: the data directory's own secret file. */
  secret: Buffer | null;
  /** `LINEAGE_DATABASE_READ_SECONDS` in ms: how long a statement may go unanswered (0: no limit). */
  databaseReadMs: number;
}

/** The longest read limit taken (a day): more is a typo, not a wish. */
const MAX_READ_SECONDS = 86_400;

function databaseReadMs(env: Record<string, string | undefined>): number {
  const text = env.LINEAGE_DATABASE_READ_SECONDS || undefined;
  if (text === undefined) return DEFAULT_PG_READ_TIMEOUT_MS;
  if (!/^\d{1,5}$/.test(text) || Number(text) > MAX_READ_SECONDS) {
    throw new Error(`LINEAGE_DATABASE_READ_SECONDS must be a whole number of seconds from 0 (no limit) to ${MAX_READ_SECONDS}, got "${text.slice(0, 20)}"`);
  }
  return Number(text) * 1000;
}

/** What a database URL looks like, for messages. */
const DATABASE_URL_FORM = 'postgres://user:password@host:5432/database';

/**
 * Why `url` is no PostgreSQL URL the driver can read, or null. The driver (pg-connection-string)
 * reads it with WHATWG's `URL`, trying again with a placeholder host for `user@/database` (a
 * socket from PGHOST): what neither reading takes — a port that is no number, an unclosed `[` —
 * failed only when the storage was opened, as if the server were down (`storage_unavailable`).
 * The message never repeats the URL: it may hold a password.
 */
export function databaseUrlProblem(url: string): string | null {
  if (!/^postgres(ql)?:\/\/\S+$/.test(url)) return `must be a postgres:// or postgresql:// URL such as ${DATABASE_URL_FORM}`;
  const read = (text: string) => {
    try {
      return new URL(text);
    } catch {
      return null;
    }
  };
  const parsed = read(url) ?? read(url.replace('@/', '@___DUMMY___/'));
  // After the last `@` of the authority: a password never shows in the message.
  const authority = /^postgres(?:ql)?:\/\/(?:[^/?#]*@)?([^/?#@]*)/.exec(url)?.[1] ?? '';
  const port = /^(?:\[[^\]]*\]|[^:[\]]*):(.*)$/.exec(authority)?.[1];
  if (port !== undefined && port !== '' && !(/^\d{1,5}$/.test(port) && Number(port) >= 1 && Number(port) <= 65535)) {
    return `has a port that is not a number from 1 to 65535 ("${port.slice(0, 20)}"): it must look like ${DATABASE_URL_FORM}`;
  }
  if (parsed === null) return `cannot be read as a URL (its host "${authority.slice(0, 80)}"): it must look like ${DATABASE_URL_FORM}`;
  const times = urlTimeSettings(url);
  return 'problem' in times ? times.problem : null;
}

const databaseUrl = z.string().superRefine((url, context) => {
  const problem = databaseUrlProblem(url);
  if (problem !== null) context.addIssue({ code: 'custom', message: problem });
}).optional();
const secret = z.string().regex(/^[0-9a-fA-F]{64}$/, 'must be 64 hex characters (32 random bytes: openssl rand -hex 32)').optional();

function blobSettings(env: Record<string, string | undefined>, flag: string | undefined): S3Settings | null {
  try {
    return s3SettingsFrom({ ...env, LINEAGE_BLOB_URL: flag ?? env.LINEAGE_BLOB_URL });
  } catch (error) {
    if (flag === undefined || !(error instanceof Error)) throw error;
    throw new Error(error.message.replaceAll('LINEAGE_BLOB_URL', '--blob-url'));
  }
}

/** The backend settings of `env`, flags first; throws a message naming the variable at the first bad value. */
export function scaleOutConfigFrom(
  env: Record<string, string | undefined>,
  flags: { databaseUrl?: string; blobUrl?: string } = {},
): ScaleOutConfig {
  const url = flags.databaseUrl ?? (env.LINEAGE_DATABASE_URL || undefined);
  const parsedUrl = databaseUrl.safeParse(url);
  if (!parsedUrl.success) {
    throw new Error(`${flags.databaseUrl !== undefined ? '--database-url' : 'LINEAGE_DATABASE_URL'} ${parsedUrl.error.issues[0]?.message}`);
  }
  // The driver sends PGOPTIONS as every connection's options: its time limits are refused as the URL's.
  const inherited = parsedUrl.data === undefined ? null : pgOptionsProblem(env);
  if (inherited !== null) throw new Error(inherited);
  const parsedSecret = secret.safeParse(env.LINEAGE_SECRET || undefined);
  if (!parsedSecret.success) throw new Error(`LINEAGE_SECRET ${parsedSecret.error.issues[0]?.message}`);
  const readMs = databaseReadMs(env);
  const blobs = blobSettings(env, flags.blobUrl);
  if (parsedUrl.data !== undefined && blobs !== null && parsedSecret.data === undefined) {
    throw new Error('LINEAGE_SECRET is required with a database URL and a blob URL: every server process must sign and check URLs with the same secret');
  }
  return {
    databaseUrl: parsedUrl.data ?? null,
    blobs,
    secret: parsedSecret.data === undefined ? null : Buffer.from(parsedSecret.data, 'hex'),
    databaseReadMs: readMs,
  };
}
