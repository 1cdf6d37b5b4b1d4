import { existsSync, rmSync } from 'node:fs';
import path from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { freshBucket, freshDatabase, scaleOutEnv } from '@/tests/engines/use-engines';
import { spawnServe, spawnServer, tempDataDir } from './harness';

const dataDir = tempDataDir();
const unusedDataDir = tempDataDir();
afterAll(() => {
  rmSync(dataDir, { recursive: true, force: true });
  rmSync(unusedDataDir, { recursive: true, force: true });
});

async function stdoutLines(server: Awaited<ReturnType<typeof spawnServer>>): Promise<string[]> {
  try {
    await expect.poll(() => server.stdout()).toContain('\n');
  } finally {
    await server.stop();
  }
  return server.stdout().split('\n');
}

it('lineage serve prints exactly one JSON object on stdout, its URL and data directory; the banner goes to stderr', async () => {
  const server = await spawnServer(dataDir);
  const lines = await stdoutLines(server);
  expect(lines).toHaveLength(2);
  expect(lines[1]).toBe('');
  expect(JSON.parse(lines[0]!)).toEqual({ ok: true, url: server.url, data: dataDir });
  expect(server.stderr()).toContain(`listening on ${server.url}`);
});

it('on the scale-out storage it names the database and bucket it serves, not a data directory it never opens (nor the URL\'s user)', async () => {
  const [databaseUrl, { bucket, settings }] = await Promise.all([freshDatabase(), freshBucket()]);
  const env = scaleOutEnv(databaseUrl, bucket, settings, { LINEAGE_DATA: path.join(unusedDataDir, 'data') });
  const server = await spawnServe(['--no-ui', '--port', '0'], env, 120_000);
  const lines = await stdoutLines(server);
  expect(lines).toHaveLength(2);
  const url = new URL(databaseUrl);
  expect(JSON.parse(lines[0]!)).toEqual({ ok: true, url: server.url, data: null, database: `${url.host}${url.pathname}`, blobs: `s3://${bucket}/svc` });
  expect(lines[0]).not.toContain(`${url.username}@`);
  expect(existsSync(path.join(unusedDataDir, 'data'))).toBe(false);
});
