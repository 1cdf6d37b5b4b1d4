/**
 * A background catch-up (`lineage index --catch-up`) that died leaving entries pending and no record
 * of why — killed, or on a disk with no room for its record — was started again by the next local
 * sync only when `index-catch-up.failed` existed: otherwise only a reader folded them. The next local
 * sync that stores something now starts one when entries are pending and no catch-up is alive
 * (background-indexer.ts `catchUpLeftUndone`), and none while one is.
 */
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, expect, it } from 'vitest';
import { localTarget } from './local-target';
import { syncWorkspace } from './sync';
import { makeSandbox, steppingClock } from './testing/workspace';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const fn of cleanups.splice(0)) await fn();
});

/** The data directory's pending entries, read beside the sync (a reader of its own would fold them). */
function pending(dataDir: string): { agent_id: string; seq: number }[] {
  const db = new Database(path.join(dataDir, 'lineage.db'), { readonly: true });
  try {
    return db.prepare('SELECT agent_id, seq FROM index_pending ORDER BY agent_id, seq').all() as { agent_id: string; seq: number }[];
  } finally {
    db.close();
  }
}

it('the next local sync starts a catch-up when entries are pending and none runs (it died with no record), and none while one runs', async () => {
  const big = await makeSandbox();
  const small = await makeSandbox();
  cleanups.push(big.cleanup, small.cleanup);
  const dataDir = big.dataDir;
  // Agent BIG's large sync: its fold deferred, its catch-up never run (as if killed at once: no marker, no record).
  const dropped: (() => void)[] = [];
  const bigTarget = localTarget(dataDir, steppingClock(), { packing: 'inline', startDetached: (start) => dropped.push(start) });
  await big.write('MEMORY.md', `# Memory\n\n${Array.from({ length: 300 }, (_, i) => `## Fact ${i}\nFact ${i} is ${i}.\n`).join('\n')}`);
  await syncWorkspace({ runtime: 'openclaw', workspace: big.workspace, target: bigTarget, alfHome: big.alfHome, clock: steppingClock() });
  expect(dropped).toHaveLength(1);
  const bigAgent = fs.readFileSync(path.join(big.workspace, '.alf-agent-id'), 'utf8').trim();
  expect(pending(dataDir)).toEqual([{ agent_id: bigAgent, seq: 0 }]);
  expect(fs.existsSync(path.join(dataDir, 'index-catch-up.failed'))).toBe(false);
  expect(fs.existsSync(path.join(dataDir, 'index-catch-up.pid'))).toBe(false);

  // Agent SMALL's small syncs (indexed inline, and its ingest folds only its own agent's entries).
  const started: (() => void)[] = [];
  const smallTarget = localTarget(dataDir, steppingClock(), { packing: 'inline', startDetached: (start) => started.push(start) });
  const clock = steppingClock();
  const syncSmall = async (n: number) => {
    await small.write('MEMORY.md', `# Memory\n\n## Owner\nDana owns billing, turn ${n}.\n`);
    await syncWorkspace({ runtime: 'openclaw', workspace: small.workspace, target: smallTarget, alfHome: small.alfHome, clock });
  };

  // A catch-up alive (its marker names a live process: this one): the sync starts none beside it.
  const marker = path.join(dataDir, 'index-catch-up.pid');
  fs.writeFileSync(marker, `${process.pid}\n`);
  await syncSmall(0);
  expect(started).toHaveLength(0);

  // It died (its marker names a process that is gone): the next sync starts one.
  fs.writeFileSync(marker, '2147483646\n');
  await syncSmall(1);
  expect(started).toHaveLength(1);
  // None left behind at all: the same.
  fs.rmSync(marker);
  await syncSmall(2);
  expect(started).toHaveLength(2);
  expect(pending(dataDir)).toEqual([{ agent_id: bigAgent, seq: 0 }]);

  // What it starts is the catch-up: run for real, it folds BIG's entry with no reader.
  started[0]!();
  for (const deadline = Date.now() + 60_000; pending(dataDir).length > 0;) {
    if (Date.now() > deadline) throw new Error('the catch-up the sync started did not fold the entry within 60 s');
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  // Nothing pending: a sync starts nothing.
  await syncSmall(3);
  expect(started).toHaveLength(2);
}, 120_000);
