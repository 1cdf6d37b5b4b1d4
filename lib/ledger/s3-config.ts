/**
 * Where the scale-out backend keeps its blobs: `LINEAGE_BLOB_URL=s3://bucket[/prefix]`, with the
 * AWS SDK's standard settings beside it (`AWS_ENDPOINT_URL_S3` › `AWS_ENDPOINT_URL`, `AWS_REGION`
 * › `AWS_DEFAULT_REGION`, credentials from the SDK's default chain: `AWS_ACCESS_KEY_ID`,
 * `AWS_SECRET_ACCESS_KEY`, profiles, …) and `LINEAGE_S3_FORCE_PATH_STYLE=1` for servers that do
 * not route virtual-hosted names (radosgw, most self-hosted S3). Parsed once, with zod; a bad
 * value stops the process with a message that names the variable.
 */
import { S3Client } from '@aws-sdk/client-s3';
import { z } from 'zod';

/** A bucket and the key prefix the service owns inside it ('' = the whole bucket). */
export interface S3Location {
  bucket: string;
  prefix: string;
}

export interface S3Settings extends S3Location {
  endpoint: string | undefined;
  region: string;
  forcePathStyle: boolean;
  /** `LINEAGE_S3_IDLE_SECONDS`: a connection not made, or a request on which no byte moves, for this long fails. */
  idleSeconds?: number;
}

/**
 * How long an S3 request may wait for the store without a byte moving (default). The SDK waits
 * forever by default, and an ingest writes its blob holding the agent's row lock: a gateway that
 * stopped answering held every later upload of that agent, and the pooled connection, for good.
 */
export const DEFAULT_S3_IDLE_SECONDS = 60;

const BUCKET = /^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/;
const PREFIX_SEGMENT = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;

/** `s3://bucket[/prefix]` → its bucket and prefix (no leading or trailing `/`). */
export function parseBlobUrl(url: string): S3Location {
  const match = /^s3:\/\/([^/]+)(?:\/(.*))?$/.exec(url);
  if (!match) throw new Error(`LINEAGE_BLOB_URL must look like s3://bucket[/prefix], got "${url}"`);
  const bucket = match[1] ?? '';
  if (!BUCKET.test(bucket) || bucket.includes('..')) {
    throw new Error(`LINEAGE_BLOB_URL bucket "${bucket}" is not a valid S3 bucket name (3-63 of a-z 0-9 . -)`);
  }
  const prefix = (match[2] ?? '').replace(/\/+$/, '');
  if (prefix !== '' && !prefix.split('/').every((segment) => PREFIX_SEGMENT.test(segment))) {
    throw new Error(`LINEAGE_BLOB_URL prefix "${prefix}" must be /-separated segments of A-Z a-z 0-9 . _ - (not starting with . _ -)`);
  }
  return { bucket, prefix };
}

const flag = z.enum(['0', '1', 'true', 'false']).optional().transform((value) => value === '1' || value === 'true');
const optionalUrl = z.string().url().optional();

const envSchema = z.object({
  LINEAGE_BLOB_URL: z.string().min(1).optional(),
  LINEAGE_S3_FORCE_PATH_STYLE: flag,
  AWS_ENDPOINT_URL_S3: optionalUrl,
  AWS_ENDPOINT_URL: optionalUrl,
  AWS_REGION: z.string().min(1).optional(),
  AWS_DEFAULT_REGION: z.string().min(1).optional(),
  LINEAGE_S3_IDLE_SECONDS: z.coerce.number().int().min(1).max(3600).optional(),
});

/** The S3 settings in `env`, or null when `LINEAGE_BLOB_URL` is unset (the embedded filesystem store). */
export function s3SettingsFrom(env: Record<string, string | undefined>): S3Settings | null {
  const parsed = envSchema.safeParse(Object.fromEntries(Object.entries(env).filter(([, value]) => value !== '')));
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`).join('; ');
    throw new Error(`bad S3 settings in the environment: ${problems}`);
  }
  const vars = parsed.data;
  if (vars.LINEAGE_BLOB_URL === undefined) return null;
  return {
    ...parseBlobUrl(vars.LINEAGE_BLOB_URL),
    endpoint: vars.AWS_ENDPOINT_URL_S3 ?? vars.AWS_ENDPOINT_URL,
    // S3-compatible servers ignore the region but SigV4 needs one; AWS's own default.
    region: vars.AWS_REGION ?? vars.AWS_DEFAULT_REGION ?? 'us-east-1',
    forcePathStyle: vars.LINEAGE_S3_FORCE_PATH_STYLE,
    ...(vars.LINEAGE_S3_IDLE_SECONDS === undefined ? {} : { idleSeconds: vars.LINEAGE_S3_IDLE_SECONDS }),
  };
}

let fromProcess: { settings: S3Settings | null } | null = null;

/** `s3SettingsFrom(process.env)`, parsed on first use and kept for the life of the process. */
export function s3Settings(): S3Settings | null {
  fromProcess ??= { settings: s3SettingsFrom(process.env) };
  return fromProcess.settings;
}

/**
 * The SDK client for `settings`. Checksums only when an operation requires them: the SDK's
 * default (a CRC32 trailer on every PUT) is not understood by every S3-compatible server.
 * `credentials` overrides the SDK's default chain (tests, `lineage migrate`).
 */
export function createS3Client(settings: Pick<S3Settings, 'endpoint' | 'region' | 'forcePathStyle' | 'idleSeconds'>, credentials?: { accessKeyId: string; secretAccessKey: string; sessionToken?: string }): S3Client {
  // The SDK is pinned to the last release for Node 20 on purpose (package.json); its yearly
  // "upgrade to Node 22" warning would only repeat that.
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
  const idleMs = (settings.idleSeconds ?? DEFAULT_S3_IDLE_SECONDS) * 1000;
  return new S3Client({
    endpoint: settings.endpoint,
    region: settings.region,
    forcePathStyle: settings.forcePathStyle,
    credentials,
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
    // An idle limit, not a total one: a large upload on a slow link keeps moving bytes.
    requestHandler: { connectionTimeout: idleMs, socketTimeout: idleMs },
  });
}
