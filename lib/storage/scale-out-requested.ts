/**
 * Whether a command's settings ask for the scale-out backend at all: a database URL or a blob URL,
 * as a flag or a `LINEAGE_*` variable. Read without loading anything, so a command on the embedded
 * data directory (an everyday `lineage sync`) never loads zod, `pg` or the AWS SDK; when they do ask
 * for it, `storageConfigFrom` (config.ts) reads every setting and refuses a bad or half one.
 */
export interface StorageFlags {
  data?: string;
  databaseUrl?: string;
  blobUrl?: string;
}

const given = (value: string | undefined) => value !== undefined && value !== '';

export function scaleOutRequested(env: Record<string, string | undefined>, flags: StorageFlags): boolean {
  return flags.databaseUrl !== undefined || flags.blobUrl !== undefined || given(env.LINEAGE_DATABASE_URL) || given(env.LINEAGE_BLOB_URL);
}

/** A database URL for messages: its host and database, never its password. */
export function describeScaleOut(databaseUrl: string, blobs: { bucket: string; prefix: string }): string {
  let where = 'the database';
  try {
    const url = new URL(databaseUrl);
    where = `${url.host}${url.pathname}`;
  } catch {
    // A URL the driver accepts but WHATWG does not: name no part of it.
  }
  return `database ${where}, blobs s3://${blobs.bucket}${blobs.prefix ? `/${blobs.prefix}` : ''}`;
}
