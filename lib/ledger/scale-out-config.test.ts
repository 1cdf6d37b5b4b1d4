import { describe, expect, it } from 'vitest';
import { scaleOutConfigFrom } from './scale-out-config';

const SECRET = 'ab'.repeat(32);

describe('backend selection from the environment and flags', () => {
  it('nothing set: the embedded backend', () => {
    expect(scaleOutConfigFrom({})).toEqual({ databaseUrl: null, blobs: null, secret: null, databaseReadMs: 300_000 });
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

  it('LINEAGE_DATABASE_READ_SECONDS: whole seconds, 0 for no limit, 300 by default; anything else refused, saying so', () => {
    expect(scaleOutConfigFrom({}).databaseReadMs).toBe(300_000);
    expect(scaleOutConfigFrom({ LINEAGE_DATABASE_READ_SECONDS: '30' }).databaseReadMs).toBe(30_000);
    expect(scaleOutConfigFrom({ LINEAGE_DATABASE_READ_SECONDS: '0' }).databaseReadMs).toBe(0);
    for (const bad of ['soon', '-1', '1.5', '86401']) {
      expect(() => scaleOutConfigFrom({ LINEAGE_DATABASE_READ_SECONDS: bad }))
        .toThrow(`LINEAGE_DATABASE_READ_SECONDS must be a whole number of seconds from 0 (no limit) to 86400, got "${bad}"`);
    }
  });

  it('bad values name their variable or flag', () => {
    expect(() => scaleOutConfigFrom({ LINEAGE_DATABASE_URL: 'mysql://db/x' })).toThrow(/^LINEAGE_DATABASE_URL must be a postgres/);
    expect(() => scaleOutConfigFrom({}, { databaseUrl: 'db' })).toThrow(/^--database-url must be a postgres/);
    expect(() => scaleOutConfigFrom({ LINEAGE_SECRET: 'short' })).toThrow(/^LINEAGE_SECRET must be 64 hex/);
    expect(() => scaleOutConfigFrom({}, { blobUrl: 'file:///tmp' })).toThrow(/^--blob-url must look like s3:/);
  });

  it('a database URL the driver cannot read is refused here, not when the storage is opened; the password is never repeated', () => {
    const form = 'it must look like postgres://user:password@host:5432/database';
    expect(() => scaleOutConfigFrom({}, { databaseUrl: 'postgres://u:hunter2@db:abc/x' })).toThrow(`--database-url has a port that is not a number from 1 to 65535 ("abc"): ${form}`);
    expect(() => scaleOutConfigFrom({ LINEAGE_DATABASE_URL: 'postgres://db:99999999/x' })).toThrow(`LINEAGE_DATABASE_URL has a port that is not a number from 1 to 65535 ("99999999")`);
    expect(() => scaleOutConfigFrom({}, { databaseUrl: 'postgres://db:0/x' })).toThrow(/port that is not a number from 1 to 65535 \("0"\)/);
    expect(() => scaleOutConfigFrom({}, { databaseUrl: 'postgresql://u:p@ss@[::1/x' })).toThrow(`--database-url cannot be read as a URL (its host "[::1"): ${form}`);
    expect(() => scaleOutConfigFrom({}, { databaseUrl: 'not-a-url' })).toThrow('--database-url must be a postgres:// or postgresql:// URL such as postgres://user:password@host:5432/database');
    for (const url of ['postgres://u:hunter2@db:abc/x', 'postgres://u:hunter2@[::1/x']) {
      expect(() => scaleOutConfigFrom({}, { databaseUrl: url })).toThrow(expect.objectContaining({ message: expect.not.stringContaining('hunter2') }));
    }
    // What the driver reads: no host (PGHOST or the socket), a socket path as the host, IPv6, options.
    for (const url of ['postgres:///x', 'postgres://u:p@/x', 'postgres://%2Fvar%2Frun%2Fpostgresql/x', 'postgresql://[::1]:5432/x', 'postgres://u:p@db:5432/x?sslmode=require', 'postgres://db']) {
      expect(scaleOutConfigFrom({}, { databaseUrl: url }).databaseUrl).toBe(url);
    }
  });
});
