/**
 * Which storage a process runs on, from the environment and the command line (issue 21 §2), and
 * the one function that opens it. Nothing set: the embedded data directory (`--data`,
 * `LINEAGE_DATA`, `./data`). `LINEAGE_DATABASE_URL` / `--database-url` (postgres://…) together with
 * `LINEAGE_BLOB_URL` / `--blob-url` (s3://bucket[/prefix]): the scale-out backend, with the AWS
 * SDK's standard settings (`AWS_ENDPOINT_URL_S3` › `AWS_ENDPOINT_URL`, `AWS_REGION`, keys) and
 * `LINEAGE_S3_FORCE_PATH_STYLE=1`. A scale-out process keeps nothing on local disk another needs,
 * so the signing secret must come from `LINEAGE_SECRET`. `LINEAGE_S3_DOWNLOADS=presigned|proxied`
 * says whether clients fetch blobs from the bucket (presigned GET) or through the server, and
 * `LINEAGE_S3_DOWNLOAD_SECONDS` how long such a GET stays valid (see `DEFAULT_PRESIGNED_GET_SECONDS`).
 * Every bad value is a `StorageConfigError` naming the variable or flag; nothing is opened then.
 * A storage that cannot be opened (PostgreSQL unreachable, a refused login) is a `StorageUnavailableError`.
 */
import { resolveDataDir } from '@/lib/ledger/data-dir';
import { createS3Client, type S3Settings } from '@/lib/ledger/s3-config';
import { scaleOutConfigFrom } from '@/lib/ledger/scale-out-config';
import { openEmbeddedStorage } from './embedded';
import { DEFAULT_PRESIGNED_GET_SECONDS, openScaleOutStorage } from './scale-out';
import { describeScaleOut, type StorageFlags } from './scale-out-requested';
import type { LineageStorage } from './types';

export { DEFAULT_PRESIGNED_GET_SECONDS };
export type { StorageFlags };

export type DownloadMode = 'presigned' | 'proxied';
export const DOWNLOAD_MODES: readonly DownloadMode[] = ['presigned', 'proxied'];
/** SigV4's longest presigned lifetime (7 days). */
const MAX_PRESIGNED_SECONDS = 7 * 24 * 60 * 60;

export interface S3Credentials {
  accessKeyId: string;
  secretAccessKey: string;
  sessionToken?: string;
}

export type StorageConfig =
  | { backend: 'embedded'; dataDir: string; secret: Buffer | null }
  | {
    backend: 'scale-out';
    databaseUrl: string;
    blobs: S3Settings;
    /** Keys given in the environment; undefined: the SDK's default chain (profiles, instance roles, …). */
    credentials: S3Credentials | undefined;
    secret: Buffer;
    downloads: DownloadMode;
    /** The lifetime of a presigned GET (`LINEAGE_S3_DOWNLOAD_SECONDS`). */
    presignedGetSeconds: number;
    /** How long a database statement may go unanswered (`LINEAGE_DATABASE_READ_SECONDS`); absent: the default. */
    databaseReadMs?: number;
  };

/** A setting that cannot be used; its message names the variable or flag and what it must be. */
export class StorageConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'StorageConfigError';
  }
}

type Env = Record<string, string | undefined>;
const set = (env: Env, name: string) => (env[name] === undefined || env[name] === '' ? undefined : env[name]);

function credentialsFrom(env: Env): S3Credentials | undefined {
  const accessKeyId = set(env, 'AWS_ACCESS_KEY_ID');
  const secretAccessKey = set(env, 'AWS_SECRET_ACCESS_KEY');
  if (accessKeyId === undefined && secretAccessKey === undefined) return undefined;
  if (accessKeyId === undefined || secretAccessKey === undefined) {
    throw new StorageConfigError(`${accessKeyId === undefined ? 'AWS_ACCESS_KEY_ID' : 'AWS_SECRET_ACCESS_KEY'} is missing: set both AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or neither (the SDK's default credential chain)`);
  }
  const sessionToken = set(env, 'AWS_SESSION_TOKEN');
  return { accessKeyId, secretAccessKey, ...(sessionToken === undefined ? {} : { sessionToken }) };
}

function downloadsFrom(env: Env): DownloadMode {
  const value = set(env, 'LINEAGE_S3_DOWNLOADS') ?? 'presigned';
  if (!(DOWNLOAD_MODES as readonly string[]).includes(value)) {
    throw new StorageConfigError(`LINEAGE_S3_DOWNLOADS must be "presigned" (clients fetch from the bucket) or "proxied" (through the server), got "${value}"`);
  }
  return value as DownloadMode;
}

function presignedGetSecondsFrom(env: Env): number {
  const text = set(env, 'LINEAGE_S3_DOWNLOAD_SECONDS');
  if (text === undefined) return DEFAULT_PRESIGNED_GET_SECONDS;
  if (!/^\d{1,6}$/.test(text) || Number(text) < 1 || Number(text) > MAX_PRESIGNED_SECONDS) {
    throw new StorageConfigError(`LINEAGE_S3_DOWNLOAD_SECONDS must be a whole number of seconds from 1 to ${MAX_PRESIGNED_SECONDS} (7 days, S3's limit), got "${text}"`);
  }
  return Number(text);
}

function checkRegion(env: Env): void {
  for (const name of ['AWS_REGION', 'AWS_DEFAULT_REGION']) {
    const value = set(env, name);
    if (value !== undefined && !/^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/.test(value)) {
      throw new StorageConfigError(`${name} must be a region name such as us-east-1, got "${value}"`);
    }
  }
}

/** The storage `env` and `flags` select (flags over variables); throws `StorageConfigError` at the first bad value. */
export function storageConfigFrom(env: Env, flags: StorageFlags = {}): StorageConfig {
  let parsed: ReturnType<typeof scaleOutConfigFrom>;
  try {
    checkRegion(env);
    parsed = scaleOutConfigFrom(env, { databaseUrl: flags.databaseUrl, blobUrl: flags.blobUrl });
  } catch (error) {
    if (error instanceof StorageConfigError || !(error instanceof Error)) throw error;
    throw new StorageConfigError(error.message);
  }
  const downloads = downloadsFrom(env);
  const presignedGetSeconds = presignedGetSecondsFrom(env);
  const dbName = flags.databaseUrl !== undefined ? '--database-url' : 'LINEAGE_DATABASE_URL';
  const blobName = flags.blobUrl !== undefined ? '--blob-url' : 'LINEAGE_BLOB_URL';
  if (parsed.databaseUrl === null && parsed.blobs === null) {
    return { backend: 'embedded', dataDir: resolveDataDir(flags.data, env as NodeJS.ProcessEnv), secret: parsed.secret };
  }
  // PostgreSQL beside local blobs (or S3 beside a local index) would leave state on one machine's
  // disk that every process needs: the scale-out backend takes both or neither.
  if (parsed.blobs === null) {
    throw new StorageConfigError(`${dbName} is set but LINEAGE_BLOB_URL is not: the scale-out backend keeps its blobs in S3, set LINEAGE_BLOB_URL=s3://bucket[/prefix] (or --blob-url) too, or unset ${dbName} for the embedded data directory`);
  }
  if (parsed.databaseUrl === null) {
    throw new StorageConfigError(`${blobName} is set but LINEAGE_DATABASE_URL is not: the scale-out backend keeps its index in PostgreSQL, set LINEAGE_DATABASE_URL=postgres://… (or --database-url) too, or unset ${blobName} for the embedded data directory`);
  }
  if (parsed.secret === null) throw new StorageConfigError('LINEAGE_SECRET is required with a database URL and a blob URL');
  return {
    backend: 'scale-out', databaseUrl: parsed.databaseUrl, blobs: parsed.blobs, credentials: credentialsFrom(env),
    secret: parsed.secret, downloads, presignedGetSeconds, databaseReadMs: parsed.databaseReadMs,
  };
}

/** The scale-out storage could not be opened; `code` and `hint` are what the CLI prints (no stack). */
export class StorageUnavailableError extends Error {
  readonly code = 'storage_unavailable';

  readonly hint = 'check LINEAGE_DATABASE_URL / --database-url (PostgreSQL running and reachable, the user and password) and the AWS_* settings';

  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'StorageUnavailableError';
  }
}

/** Opens the storage `config` names (the scale-out one migrated first). */
export async function openStorage(config: StorageConfig, options: { poolSize?: number } = {}): Promise<LineageStorage> {
  if (config.backend === 'embedded') return openEmbeddedStorage(config.dataDir);
  const client = createS3Client(config.blobs, config.credentials);
  try {
    return await openScaleOutStorage({
      databaseUrl: config.databaseUrl, client, location: { bucket: config.blobs.bucket, prefix: config.blobs.prefix },
      poolSize: options.poolSize, downloads: config.downloads, presignedGetSeconds: config.presignedGetSeconds,
      databaseReadMs: config.databaseReadMs,
    });
  } catch (error) {
    client.destroy();
    const why = error instanceof Error ? error.message || String((error as { code?: unknown }).code ?? error.name) : String(error);
    throw new StorageUnavailableError(`cannot open the scale-out storage (${describeScaleOut(config.databaseUrl, config.blobs)}): ${why}`, { cause: error });
  }
}
