/**
 * A local first sync large enough for its fold to be left to the background catch-up
 * (`lineage index --catch-up`, lib/history/pending-index.ts), on a data directory whose disk fills
 * up while that catch-up folds it: the sync's entry is stored and acknowledged; the catch-up's
 * failure is kept (`<data>/index-catch-up.failed`) and named by `lineage doctor` (ok false: which
 * entry, why, what to run) and by `lineage index --catch-up`; reads answer `disk_full`, never a
 * 500, and nothing is lost or deleted. Once space is freed, `lineage index --catch-up`, a read
 * (`lineage search`: the storage's verbs the dashboard's API calls) or the next sync folds the
 * entry, and the failure is gone.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { backgroundCatchUp } from '@/lib/history/pending-index';
import { hasExited, isStopped, waitUntil } from '@/lib/ledger/testing/packer-process';
import { makeSandbox } from '@/lib/sync/testing/workspace';
import { fillDisk, mountTinyDisk } from '../server/mounts';
import { runCli } from './run-cli';

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

function stored(dataDir: string): { agent: string; entries: unknown[]; pending: unknown[]; versions: number } {
  const db = new Database(path.join(dataDir, 'lineage.db'), { readonly: true });
  try {
    return {
      agent: db.prepare('SELECT id FROM agents').pluck().get() as string,
      entries: db.prepare('SELECT seq, kind, sha256 FROM ledger_entries ORDER BY seq').all(),
      pending: db.prepare('SELECT seq, kind FROM index_pending ORDER BY seq').all(),
      versions: db.prepare('SELECT count(*) FROM record_versions').pluck().get() as number,
    };
  } finally {
    db.close();
  }
}

const NOTES = 800;
const words = (n: number) => Array.from({ length: n }, () => randomBytes(5).toString('hex')).join(' ');

describe('a full disk under the background catch-up of a local first sync', () => {
  for (const caughtUpBy of ['index --catch-up', 'a read', 'the next sync', 'another agent\'s sync'] as const) {
    it(`the catch-up's failure is named by doctor and index --catch-up, nothing is lost, and once space is freed ${caughtUpBy} folds the entry and the failure is gone`, async (ctx) => {
      const sb = await makeSandbox('lineage-full-fold-');
      cleanups.push(sb.cleanup);
      fs.mkdirSync(sb.dataDir, { recursive: true });
      const unmount = mountTinyDisk(sb.dataDir, 64 * 1024 * 1024);
      if (!unmount) ctx.skip(); // needs root and mount(8): the real condition is wanted, not a simulation
      cleanups.push(unmount!);
      const env = { ALF_HOME: sb.alfHome };
      const sync = () => runCli(['sync', '-r', 'openclaw', '-w', sb.workspace, '--data', sb.dataDir], env);
      await sb.write('MEMORY.md', `# M\n\n${Array.from({ length: NOTES }, (_, i) => `## Note ${i}\n${words(60)}\n`).join('\n')}`);
      // The catch-up the sync starts stops once it holds its marker (LINEAGE_INDEX_STOP_AT), the disk fills, it goes on.
      const first = await runCli(['sync', '-r', 'openclaw', '-w', sb.workspace, '--data', sb.dataDir], { ...env, LINEAGE_INDEX_STOP_AT: 'marked' });
      expect(first.json, first.stderr).toMatchObject({ ok: true, sequence: 0 });
      let pid: number | null = null;
      await waitUntil('the catch-up stopped at its marker', () => (pid = backgroundCatchUp(sb.dataDir)) !== null && isStopped(pid));
      const acknowledged = stored(sb.dataDir);
      const agent = acknowledged.agent;
      expect(acknowledged.pending).toEqual([{ seq: 0, kind: 'snapshot' }]);
      const filler = fillDisk(sb.dataDir);
      process.kill(pid!, 'SIGCONT');
      await waitUntil('the catch-up exited', () => hasExited(pid!));

      // The entry is stored and still pending; the failure is kept, the marker gone.
      expect(stored(sb.dataDir)).toEqual(acknowledged);
      expect(fs.existsSync(path.join(sb.dataDir, 'index-catch-up.pid'))).toBe(false);
      const failure = JSON.parse(fs.readFileSync(path.join(sb.dataDir, 'index-catch-up.failed'), 'utf8'));
      expect(failure).toMatchObject({ agent_id: agent, sequence: 0, kind: 'snapshot', code: 'disk_full' });

      const doctor = await runCli(['doctor', '--data', sb.dataDir]);
      expect(doctor.code).toBe(1);
      expect(doctor.json).toMatchObject({ ok: false, index_pending: [{ agent_id: agent, sequence: 0, kind: 'snapshot' }], index_failure: failure });
      expect(doctor.stderr).toContain(`not in the history index: agent ${agent} sequence 0 (snapshot), nor what follows it: its catch-up failed at ${failure.at} (disk_full: no space left on the disk holding ${sb.dataDir}`);
      expect(doctor.stderr).toContain(`Free some space on that disk, then run \`lineage index --catch-up --data ${sb.dataDir}\``);

      const again = await runCli(['index', '--catch-up', '--data', sb.dataDir]);
      expect(again.code).toBe(1);
      expect(again.json).toMatchObject({ ok: false, code: 'disk_full' });
      expect(again.json.error).toContain(`the history index was not caught up: agent ${agent} sequence 0 (snapshot) is stored in the ledger but could not be folded: no space left`);
      // A read on the full disk: disk_full, not a 500, and not an empty history presented as complete.
      const read = await runCli(['search', 'Note', '--data', sb.dataDir]);
      expect(read.code).toBe(1);
      expect(read.json).toMatchObject({ ok: false, code: 'disk_full' });
      expect(read.json.error).toContain(`to fold agent ${agent} sequence 0 (snapshot) into the history index: that entry is stored in the ledger`);
      expect(read.json.error).not.toContain('nothing was stored');
      expect(stored(sb.dataDir)).toEqual(acknowledged);

      fs.rmSync(filler);
      if (caughtUpBy === 'index --catch-up') {
        expect((await runCli(['index', '--catch-up', '--data', sb.dataDir])).json).toEqual({ ok: true, folded: 1 });
      } else if (caughtUpBy === 'a read') {
        const found = await runCli(['search', 'Note', '--data', sb.dataDir]);
        expect(found.code, found.stderr).toBe(0);
        expect(found.json).toMatchObject({ query: 'Note', total: NOTES });
      } else if (caughtUpBy === 'the next sync') {
        // Its ingest folds its agent's pending entry before its own.
        await sb.write('MEMORY.md', '# M\n\n## One\nsmall now\n');
        expect((await sync()).json).toMatchObject({ ok: true, sequence: 1 });
      } else {
        // A small sync of another agent folds nothing of the first; it starts the failed catch-up again.
        const other = path.join(sb.root, 'ws2');
        fs.mkdirSync(other);
        fs.writeFileSync(path.join(other, 'MEMORY.md'), '# Other\n\n## One\nsmall\n');
        expect((await runCli(['sync', '-r', 'openclaw', '-w', other, '--data', sb.dataDir], env)).json).toMatchObject({ ok: true, sequence: 0 });
        await waitUntil('the catch-up folded the first agent', () => stored(sb.dataDir).pending.length === 0 && backgroundCatchUp(sb.dataDir) === null, 60_000);
      }
      const after = stored(sb.dataDir);
      expect(after.entries.slice(0, 1)).toEqual(acknowledged.entries);
      expect(after.pending.length === 0 || caughtUpBy === 'the next sync').toBe(true);
      expect(after.versions).toBeGreaterThanOrEqual(NOTES);
      expect(fs.existsSync(path.join(sb.dataDir, 'index-catch-up.failed'))).toBe(false);
      const clean = await runCli(['doctor', '--data', sb.dataDir]);
      expect(clean.json, clean.stderr).toMatchObject({ ok: true });
      expect(clean.json).not.toHaveProperty('index_failure');
    }, 300_000);
  }
});

describe('a background catch-up that starts on a disk already full', () => {
  it('has nowhere to keep its failure: doctor finds the index behind the ledger on a full disk itself (ok false, why, what to run), and nothing is left behind', async (ctx) => {
    const sb = await makeSandbox('lineage-full-before-fold-');
    cleanups.push(sb.cleanup);
    fs.mkdirSync(sb.dataDir, { recursive: true });
    const unmount = mountTinyDisk(sb.dataDir, 64 * 1024 * 1024);
    if (!unmount) ctx.skip(); // needs root and mount(8)
    cleanups.push(unmount!);
    const env = { ALF_HOME: sb.alfHome };
    await sb.write('MEMORY.md', `# M\n\n${Array.from({ length: NOTES }, (_, i) => `## Note ${i}\n${words(60)}\n`).join('\n')}`);
    // The catch-up the sync starts is stopped at its marker and killed: the entry waits, no catch-up runs, no marker is left.
    const first = await runCli(['sync', '-r', 'openclaw', '-w', sb.workspace, '--data', sb.dataDir], { ...env, LINEAGE_INDEX_STOP_AT: 'marked' });
    expect(first.json, first.stderr).toMatchObject({ ok: true, sequence: 0 });
    let pid: number | null = null;
    await waitUntil('the catch-up stopped at its marker', () => (pid = backgroundCatchUp(sb.dataDir)) !== null && isStopped(pid));
    process.kill(pid!, 'SIGKILL');
    await waitUntil('the catch-up was killed', () => hasExited(pid!));
    fs.rmSync(path.join(sb.dataDir, 'index-catch-up.pid'));
    const acknowledged = stored(sb.dataDir);
    const agent = acknowledged.agent;
    expect(acknowledged.pending).toEqual([{ seq: 0, kind: 'snapshot' }]);

    // The disk is full before a catch-up starts: the one a sync would start finds no room for its marker, nor for its failure.
    const filler = fillDisk(sb.dataDir);
    const catchUp = await runCli(['index', '--catch-up', '--data', sb.dataDir]);
    expect(catchUp.code).toBe(1);
    expect(catchUp.json).toMatchObject({ ok: false, code: 'disk_full' });
    expect(catchUp.json.error).toContain(`the history index was not caught up: agent ${agent} sequence 0 (snapshot) is stored in the ledger but could not be folded: no space left on the disk holding ${sb.dataDir} for the catch-up's marker: nothing was folded`);
    // A read folds first: it says the entry is stored and its fold is what failed — not an upload's "nothing was stored".
    const read = await runCli(['search', 'Note', '--data', sb.dataDir]);
    expect(read.json).toMatchObject({ ok: false, code: 'disk_full' });
    expect(read.json.error).toContain(`no space left on the disk holding ${sb.dataDir} to fold agent ${agent} sequence 0 (snapshot) into the history index: that entry is stored in the ledger`);
    expect(read.json.error).not.toContain('nothing was stored');
    expect(fs.readdirSync(sb.dataDir).filter((n) => n.startsWith('index-catch-up'))).toEqual([]);
    expect(stored(sb.dataDir)).toEqual(acknowledged);

    const doctor = await runCli(['doctor', '--data', sb.dataDir]);
    expect(doctor.json).toMatchObject({ ok: false, index_pending: [{ agent_id: agent, sequence: 0, kind: 'snapshot' }], index_blocked: { code: 'disk_full' } });
    expect(doctor.json).not.toHaveProperty('index_failure');
    expect(doctor.stderr).toContain(`the history index is behind the ledger: 1 entry is not folded (agent ${agent} sequence 0 (snapshot) first), no catch-up is running, and the disk holding ${sb.dataDir} is full`);
    expect(doctor.stderr).toContain(`Free some space on that disk, then run \`lineage index --catch-up --data ${sb.dataDir}\``);
    expect(doctor.stderr).not.toContain('a background catch-up or the next read folds it');
    expect(doctor.code).toBe(1);

    fs.rmSync(filler);
    expect((await runCli(['index', '--catch-up', '--data', sb.dataDir])).json).toEqual({ ok: true, folded: 1 });
    const clean = await runCli(['doctor', '--data', sb.dataDir]);
    expect(clean.json, clean.stderr).toMatchObject({ ok: true, index_pending: [] });
    expect(clean.json).not.toHaveProperty('index_blocked');
  }, 300_000);
});
