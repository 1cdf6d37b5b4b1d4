import { rmSync } from 'node:fs';
import { afterAll, expect, it } from 'vitest';
import { spawnServer, tempDataDir } from './harness';

const dataDir = tempDataDir();
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

it('lineage serve prints exactly one JSON object on stdout, its URL and data directory; the banner goes to stderr', async () => {
  const server = await spawnServer(dataDir);
  try {
    await expect.poll(() => server.stdout()).toContain('\n');
  } finally {
    await server.stop();
  }
  const lines = server.stdout().split('\n');
  expect(lines).toHaveLength(2);
  expect(lines[1]).toBe('');
  expect(JSON.parse(lines[0]!)).toEqual({ ok: true, url: server.url, data: dataDir });
  expect(server.stderr()).toContain(`listening on ${server.url}`);
});
