import { describe, expect, it } from 'vitest';
import { scaleOutConfigFrom } from './scale-out-config';

const SECRET = 'ab'.repeat(32);

describe('backend selection from the environment and flags', () => {
  it('nothing set: the embedded backend', () => {
    expect(scaleOutConfigFrom({})).toEqual({ databaseUrl: null, blobs: null, secret: null });
  });

  it('both set with a secret: PostgreSQL, S3 and the shared secret; flags win over variables', () => {
    const config = scaleOutConfigFrom(
      { LINEAGE_DATABASE_URL: 'postgres://u@db/lineage', LINEAGE_BLOB_URL: 's3://env-bucket', LINEAGE_SECRET: SECRET },
      { databaseUrl: 'postgresql://u@other:5433/x', blobUrl: 's3://flag-bucket/p' },
    );
    expect(config.databaseUrl).toBe('postgresql://u@other:5433/x');
    expect(config.blobs).toMatchObject({ bucket: 'flag-bucket', prefix: 'p' });
    expect(config.secret?.toString('hex')).toBe(SECRET);
  });

  it('both set without LINEAGE_SECRET: refused, saying why', () => {
    expect(() => scaleOutConfigFrom({ LINEAGE_DATABASE_URL: 'postgres://db/x', LINEAGE_BLOB_URL: 's3://b-1' }))
      .toThrow(/LINEAGE_SECRET is required/);
    expect(scaleOutConfigFrom({ LINEAGE_DATABASE_URL: 'postgres://db/x' })).toMatchObject({ blobs: null, secret: null });
  });

  it('bad values name their variable or flag', () => {
    expect(() => scaleOutConfigFrom({ LINEAGE_DATABASE_URL: 'mysql://db/x' })).toThrow(/^LINEAGE_DATABASE_URL must be a postgres/);
    expect(() => scaleOutConfigFrom({}, { databaseUrl: 'db' })).toThrow(/^--database-url must be a postgres/);
    expect(() => scaleOutConfigFrom({ LINEAGE_SECRET: 'short' })).toThrow(/^LINEAGE_SECRET must be 64 hex/);
    expect(() => scaleOutConfigFrom({}, { blobUrl: 'file:///tmp' })).toThrow(/^--blob-url must look like s3:/);
  });
});
