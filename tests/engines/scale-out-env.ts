/**
 * The environment of a scale-out process on the run's engines: what a test (use-engines.ts) and a
 * benchmark (bench/scale-out/engines.ts) give a `lineage serve` or a storage command. Node only, no
 * vitest, so that a benchmark can import it.
 */
import { randomBytes } from 'node:crypto';

export interface S3Settings {
  /** Where the engine keeps its data and logs (for a failing test's diagnosis). */
  dir?: string;
  endpoint: string;
  region: string;
  accessKeyId: string;
  secretAccessKey: string;
}

/** The S3 settings (endpoint, region, path style, credentials) that reach the run's radosgw: a scale-out environment's blob side, without its URLs. */
export function s3Env(settings: S3Settings): Record<string, string> {
  return {
    AWS_ENDPOINT_URL_S3: settings.endpoint, AWS_REGION: settings.region, LINEAGE_S3_FORCE_PATH_STYLE: '1',
    AWS_ACCESS_KEY_ID: settings.accessKeyId, AWS_SECRET_ACCESS_KEY: settings.secretAccessKey,
  };
}

/** The environment of a scale-out `lineage serve` (or storage) on `databaseUrl` and a bucket of the run's radosgw, with a secret of its own. */
export function scaleOutEnv(databaseUrl: string, bucket: string, settings: S3Settings, extra: Record<string, string> = {}): Record<string, string> {
  return {
    LINEAGE_DATABASE_URL: databaseUrl, LINEAGE_BLOB_URL: `s3://${bucket}/svc`, LINEAGE_SECRET: randomBytes(32).toString('hex'),
    ...s3Env(settings), ...extra,
  };
}
