/**
 * A local sync (`lineage sync --data DIR`) whose upload is large enough for the ingest thread
 * (lib/storage/offload.ts), on a data directory whose disk is full: `disk_full` naming the
 * directory, nothing of it stored (no ledger row, no index row, no pending fold), and the next sync
 * once space is freed takes the change.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { makeSandbox } from '@/lib/sync/testing/workspace';
import { fillDisk, mountTinyDisk } from '../server/mounts';
import { runCli } from './run-cli';

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

function stored(dataDir: string): { entries: unknown[]; pending: number; versions: number } {
  const db = new Database(path.join(dataDir, 'lineage.db'), { readonly: true });
  try {
    return {
      entries: db.prepare('SELECT seq, kind FROM ledger_entries ORDER BY seq').all(),
      pending: db.prepare('SELECT count(*) FROM index_pending').pluck().get() as number,
      versions: db.prepare('SELECT count(*) FROM record_versions').pluck().get() as number,
    };
  } finally {
    db.close();
  }
}

describe('a full disk under a local sync\'s data directory, the upload on the ingest thread', () => {
  it('is disk_full naming the directory, stores nothing, and the next sync once space is freed takes the change', async (ctx) => {
    const sb = await makeSandbox('lineage-full-local-');
    cleanups.push(sb.cleanup);
    fs.mkdirSync(sb.dataDir, { recursive: true });
    const unmount = mountTinyDisk(sb.dataDir, 24 * 1024 * 1024);
    if (!unmount) ctx.skip(); // needs root and mount(8): the real condition is wanted, not a simulation
    cleanups.push(unmount!);
    const sync = () => runCli(['sync', '-r', 'openclaw', '-w', sb.workspace, '--data', sb.dataDir], { ALF_HOME: sb.alfHome });
    await sb.write('MEMORY.md', '# M\n\n## Gateway\nThe gateway is 10.20.0.5.\n');
    expect((await sync()).json).toMatchObject({ ok: true, sequence: 0 });
    // The disk filled up but 4 MB, then a 3.3 MB memory file came: its delta (over 1 MiB: the
    // ingest thread) fits as a blob, not with the pages its entry and index add to the database.
    const filler = fillDisk(sb.dataDir, 4000 * 1024);
    const words = (n: number) => Array.from({ length: n }, () => randomBytes(5).toString('hex')).join(' ');
    await sb.write('memory/notes.md', `# Notes\n\n${Array.from({ length: 200 }, (_, i) => `## Note ${i}\n${words(1500)}\n`).join('\n')}`);
    const before = stored(sb.dataDir);
    const full = await sync();
    expect(full.json, full.stderr).toEqual({
      ok: false, code: 'disk_full', error: `no space left on the disk holding ${sb.dataDir}: free some space and retry (nothing was stored)`,
    });
    expect(stored(sb.dataDir)).toEqual(before);
    fs.rmSync(filler);
    expect((await sync()).json).toMatchObject({ ok: true, sequence: 1, delta: true });
    expect(stored(sb.dataDir).entries).toEqual([{ seq: 0, kind: 'snapshot' }, { seq: 1, kind: 'delta' }]);
  }, 180_000);
});
