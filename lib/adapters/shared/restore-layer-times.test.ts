import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { formatNanos } from '@/lib/adapters/openclaw/workspace-files';
import { setLayerTimes, utimesSeconds } from './restore-layer-times';

const dirs: string[] = [];
afterEach(async () => {
  for (const dir of dirs.splice(0)) await fs.rm(dir, { recursive: true, force: true });
});

describe('setLayerTimes: a layer time back as the mtime it was read from', () => {
  it('sets each time to the microsecond, whatever its offset', async () => {
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'lineage-layer-times-'));
    dirs.push(dir);
    const times = new Map([
      ['SOUL.md', ['2026-04-05T11:45:10.123456Z', '2026-04-05T11:45:10.123456Z']],
      ['USER.md', ['2020-08-04T15:36:35.598762+00:00', '2020-08-04T15:36:35.598762Z']],
      ['IDENTITY.md', ['2026-04-05T13:45:10.000001+02:00', '2026-04-05T11:45:10.000001Z']],
      ['AGENTS.md', ['1970-01-01T00:00:00.000001Z', '1970-01-01T00:00:00.000001Z']],
      ['TOOLS.md', ['2026-04-05T11:45:10Z', '2026-04-05T11:45:10Z']],
      // Finer than Node sets: kept to the microsecond.
      ['HEARTBEAT.md', ['2026-12-07T09:47:32.616859490Z', '2026-12-07T09:47:32.616859Z']],
    ]);
    for (const rel of times.keys()) await fs.writeFile(path.join(dir, rel), rel);
    await setLayerTimes(dir, new Map([...times].map(([rel, [time]]) => [rel, time!])));
    for (const [rel, [, read]] of times) {
      expect(formatNanos((await fs.stat(path.join(dir, rel), { bigint: true })).mtimeNs), rel).toBe(read);
    }
  });

  it('leaves a file alone when its time is not RFC 3339, or is before 1970 (which Node would set to now)', () => {
    for (const bad of ['', 'yesterday', '2026-04-05 11:45:10Z', '2026-04-05T11:45:10', '2026-13-45T11:45:10Z', '1969-07-20T20:17:40.199999Z']) expect(utimesSeconds(bad), bad).toBeNull();
  });
});
