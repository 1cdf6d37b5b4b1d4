/**
 * Storage selection from the environment and flags: every malformed value is refused with a message
 * naming it, and `openStorage` opens the backend the config names (scale-out on the run's real
 * PostgreSQL 15 + radosgw, configured only through the variables a deployment would set).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { freshBucket, freshDatabase, scaleOutEnv } from '@/tests/engines/use-engines';
import { openStorage, StorageConfigError, storageConfigFrom, StorageUnavailableError } from './config';

const SECRET = 'cd'.repeat(32);
const BOTH = { LINEAGE_DATABASE_URL: 'postgres://u@db:5432/lineage', LINEAGE_BLOB_URL: 's3://lineage-blobs/prod', LINEAGE_SECRET: SECRET };

function refusal(env: Record<string, string>, flags = {}): string {
  try {
    storageConfigFrom(env, flags);
  } catch (error) {
    expect(error).toBeInstanceOf(StorageConfigError);
    return (error as Error).message;
  }
  throw new Error('expected a refusal');
}

describe('storageConfigFrom', () => {
  it('nothing set: the embedded data directory of --data › LINEAGE_DATA › ./data', () => {
    expect(storageConfigFrom({}, { data: '/srv/x' })).toEqual({ backend: 'embedded', dataDir: '/srv/x', secret: null });
    expect(storageConfigFrom({ LINEAGE_DATA: '/srv/y' })).toMatchObject({ dataDir: '/srv/y' });
    expect(storageConfigFrom({})).toMatchObject({ dataDir: path.resolve('./data') });
  });

  it('both URLs and a secret: scale-out with the SDK settings, path style, keys and presigned downloads by default', () => {
    const config = storageConfigFrom({
      ...BOTH, AWS_ENDPOINT_URL: 'http://other:1', AWS_ENDPOINT_URL_S3: 'http://127.0.0.1:7480', AWS_REGION: 'eu-west-3',
      LINEAGE_S3_FORCE_PATH_STYLE: '1', AWS_ACCESS_KEY_ID: 'AK', AWS_SECRET_ACCESS_KEY: 'SK',
    });
    expect(config).toEqual({
      backend: 'scale-out', databaseUrl: BOTH.LINEAGE_DATABASE_URL,
      blobs: { bucket: 'lineage-blobs', prefix: 'prod', endpoint: 'http://127.0.0.1:7480', region: 'eu-west-3', forcePathStyle: true },
      credentials: { accessKeyId: 'AK', secretAccessKey: 'SK' }, secret: Buffer.from(SECRET, 'hex'), downloads: 'presigned',
      presignedGetSeconds: 300, databaseReadMs: 300_000,
    });
    expect(storageConfigFrom({ ...BOTH, LINEAGE_S3_DOWNLOAD_SECONDS: '45' })).toMatchObject({ presignedGetSeconds: 45 });
    expect(storageConfigFrom({ ...BOTH, LINEAGE_DATABASE_READ_SECONDS: '0' })).toMatchObject({ databaseReadMs: 0 });
    expect(storageConfigFrom({ ...BOTH, AWS_ENDPOINT_URL: 'http://gw:1', LINEAGE_S3_DOWNLOADS: 'proxied' })).toMatchObject({
      blobs: { endpoint: 'http://gw:1', region: 'us-east-1', forcePathStyle: false }, credentials: undefined, downloads: 'proxied',
    });
  });

  it('flags win over the variables', () => {
    const config = storageConfigFrom(BOTH, { databaseUrl: 'postgresql://flag/db', blobUrl: 's3://flag-bucket' });
    expect(config).toMatchObject({ databaseUrl: 'postgresql://flag/db', blobs: { bucket: 'flag-bucket', prefix: '' } });
    expect(storageConfigFrom({ LINEAGE_SECRET: SECRET }, { databaseUrl: 'postgres://a/b', blobUrl: 's3://b-1/p/q' }))
      .toMatchObject({ backend: 'scale-out', blobs: { prefix: 'p/q' } });
  });

  it('both URLs without LINEAGE_SECRET: refused, saying why', () => {
    expect(refusal({ ...BOTH, LINEAGE_SECRET: '' })).toMatch(/^LINEAGE_SECRET is required with a database URL and a blob URL/);
  });

  it('one URL without the other: refused, naming what is missing', () => {
    expect(refusal({ LINEAGE_DATABASE_URL: BOTH.LINEAGE_DATABASE_URL, LINEAGE_SECRET: SECRET }))
      .toMatch(/^LINEAGE_DATABASE_URL is set but LINEAGE_BLOB_URL is not/);
    expect(refusal({}, { blobUrl: 's3://b-1' })).toMatch(/^--blob-url is set but LINEAGE_DATABASE_URL is not/);
  });

  it('malformed values name their variable or flag', () => {
    const cases: [Record<string, string>, Record<string, string>, RegExp][] = [
      [{ ...BOTH, LINEAGE_DATABASE_URL: 'mysql://db/x' }, {}, /^LINEAGE_DATABASE_URL must be a postgres:\/\/ or postgresql:\/\/ URL/],
      [BOTH, { databaseUrl: 'db.example' }, /^--database-url must be a postgres/],
      [{ ...BOTH, LINEAGE_BLOB_URL: 'https://bucket' }, {}, /^LINEAGE_BLOB_URL must look like s3:\/\/bucket\[\/prefix\]/],
      [BOTH, { blobUrl: 's3://' }, /^--blob-url must look like s3:/],
      [{ ...BOTH, LINEAGE_BLOB_URL: 's3://Upper_Case' }, {}, /^LINEAGE_BLOB_URL bucket "Upper_Case" is not a valid S3 bucket name/],
      [{ ...BOTH, LINEAGE_BLOB_URL: 's3://b-1/a/../c' }, {}, /^LINEAGE_BLOB_URL prefix "a\/..\/c" must be/],
      [{ ...BOTH, LINEAGE_SECRET: 'short' }, {}, /^LINEAGE_SECRET must be 64 hex characters/],
      [{ ...BOTH, LINEAGE_SECRET: 'z'.repeat(64) }, {}, /^LINEAGE_SECRET must be 64 hex characters/],
      [{ ...BOTH, AWS_ENDPOINT_URL_S3: 'not a url' }, {}, /AWS_ENDPOINT_URL_S3: Invalid URL/i],
      [{ ...BOTH, AWS_ENDPOINT_URL: 'localhost' }, {}, /AWS_ENDPOINT_URL: Invalid URL/i],
      [{ ...BOTH, AWS_REGION: 'us east' }, {}, /^AWS_REGION must be a region name/],
      [{ ...BOTH, LINEAGE_S3_FORCE_PATH_STYLE: 'yes' }, {}, /LINEAGE_S3_FORCE_PATH_STYLE/],
      [{ ...BOTH, LINEAGE_S3_DOWNLOADS: 'direct' }, {}, /^LINEAGE_S3_DOWNLOADS must be "presigned" .* or "proxied" .*, got "direct"/],
      [{ ...BOTH, LINEAGE_S3_DOWNLOAD_SECONDS: '0' }, {}, /^LINEAGE_S3_DOWNLOAD_SECONDS must be a whole number of seconds from 1 to 604800 .*, got "0"/],
      [{ ...BOTH, LINEAGE_S3_DOWNLOAD_SECONDS: '604801' }, {}, /^LINEAGE_S3_DOWNLOAD_SECONDS must be/],
      [{ ...BOTH, LINEAGE_S3_DOWNLOAD_SECONDS: '5m' }, {}, /^LINEAGE_S3_DOWNLOAD_SECONDS must be/],
      [{ ...BOTH, AWS_ACCESS_KEY_ID: 'AK' }, {}, /^AWS_SECRET_ACCESS_KEY is missing: set both/],
      [{ ...BOTH, AWS_SECRET_ACCESS_KEY: 'SK' }, {}, /^AWS_ACCESS_KEY_ID is missing: set both/],
    ];
    for (const [env, flags, message] of cases) expect(refusal(env, flags), JSON.stringify([env, flags])).toMatch(message);
  });
});

describe('openStorage', () => {
  it('embedded: the data directory the config names', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'lineage-config-'));
    try {
      const storage = await openStorage(storageConfigFrom({}, { data: dir }));
      expect(storage.backend).toBe('embedded');
      await storage.registerAgent({ id: '7b0f3c2e-1111-4a2b-8c3d-0000000000c1', name: 'a', sourceRuntime: null, tenantId: null, now: new Date(0) });
      await storage.close();
      expect(fs.existsSync(path.join(dir, 'lineage.db'))).toBe(true);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('scale-out: PostgreSQL and the bucket from the variables alone (endpoint, region, keys, path style)', async () => {
    const [url, { bucket, settings }] = await Promise.all([freshDatabase(), freshBucket()]);
    const config = storageConfigFrom(scaleOutEnv(url, bucket, settings, { LINEAGE_SECRET: SECRET }));
    const storage = await openStorage(config);
    try {
      expect(storage.backend).toBe('scale-out');
      const agent = '7b0f3c2e-1111-4a2b-8c3d-0000000000c2';
      await storage.registerAgent({ id: agent, name: 'b', sourceRuntime: null, tenantId: null, now: new Date(0) });
      expect((await storage.listAgents({})).map((a) => a.id)).toEqual([agent]);
      await storage.blobs.put(`${agent}/0-0123456789abcdef.alf`, new Uint8Array([1, 2, 3]));
      expect(await storage.blobs.exists(`${agent}/0-0123456789abcdef.alf`)).toBe(true);
      const download = await storage.blobDownloadUrl({ key: `${agent}/0-0123456789abcdef.alf`, expiresInSeconds: 60 });
      expect(Buffer.from(await (await fetch(download!)).arrayBuffer())).toEqual(Buffer.from([1, 2, 3]));
      // The presigned GET lives the shorter of the caller's lifetime and LINEAGE_S3_DOWNLOAD_SECONDS (300 by default).
      expect(new URL(download!).searchParams.get('X-Amz-Expires')).toBe('60');
      const long = await storage.blobDownloadUrl({ key: `${agent}/0-0123456789abcdef.alf`, expiresInSeconds: 900 });
      expect(new URL(long!).searchParams.get('X-Amz-Expires')).toBe('300');
    } finally {
      await storage.close();
    }
    if (config.backend !== 'scale-out') throw new Error('expected the scale-out config');
    const brief = await openStorage({ ...config, presignedGetSeconds: 7 });
    expect(new URL((await brief.blobDownloadUrl({ key: '7b0f3c2e-1111-4a2b-8c3d-0000000000c2/0-0123456789abcdef.alf', expiresInSeconds: 900 }))!)
      .searchParams.get('X-Amz-Expires')).toBe('7');
    await brief.close();
    const proxied = await openStorage({ ...config, downloads: 'proxied' });
    expect(await proxied.blobDownloadUrl({ key: '7b0f3c2e-1111-4a2b-8c3d-0000000000c2/0-0123456789abcdef.alf', expiresInSeconds: 60 })).toBeNull();
    await proxied.close();
  });

  it('a database that cannot be reached: StorageUnavailableError naming host and database, never the password', async () => {
    const config = storageConfigFrom({ LINEAGE_DATABASE_URL: 'postgres://u:hunter2@127.0.0.1:1/lineage', LINEAGE_BLOB_URL: 's3://b-1', LINEAGE_SECRET: SECRET });
    const error = await openStorage(config).then(() => null, (e: unknown) => e);
    expect(error).toBeInstanceOf(StorageUnavailableError);
    expect((error as StorageUnavailableError).code).toBe('storage_unavailable');
    expect((error as Error).message).toMatch(/^cannot open the scale-out storage \(database 127\.0\.0\.1:1\/lineage, blobs s3:\/\/b-1\): \S/);
    expect((error as Error).message).not.toMatch(/hunter2/);
  });
});
