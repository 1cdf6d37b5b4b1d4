/**
 * A local first sync (`lineage sync --data DIR`) whose first snapshot the ledger refuses after the
 * agent was registered — a full disk under the data directory: `disk_full` — leaves no empty agent
 * there (none on `lineage serve`'s list or its dashboard), as a sync over HTTP does
 * (lib/sync/http-refusals.test.ts): the agent this sync registered is deleted again, only if still
 * empty. An agent registered before this sync (an earlier first sync killed before its upload) is
 * kept. Once space is freed, the same sync registers the agent and stores its snapshot at 0.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { openLedger, registerAgent } from '@/lib/ledger';
import { makeSandbox } from '@/lib/sync/testing/workspace';
import { fillDisk, mountTinyDisk } from '../server/mounts';
import { runCli } from './run-cli';

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

/** The data directory's agents: id and latest sequence, by id. */
function agentsIn(dataDir: string): { id: string; latest_sequence: number | null }[] {
  const db = new Database(path.join(dataDir, 'lineage.db'), { readonly: true });
  try {
    return db.prepare('SELECT id, latest_sequence FROM agents ORDER BY id').all() as { id: string; latest_sequence: number | null }[];
  } finally {
    db.close();
  }
}

const words = (n: number) => Array.from({ length: n }, () => randomBytes(5).toString('hex')).join(' ');
/** ~3 MB of memory: a first snapshot larger than what is left on the disk. */
const largeMemory = () => `# Notes\n\n${Array.from({ length: 200 }, (_, i) => `## Note ${i}\n${words(1500)}\n`).join('\n')}`;

describe('a local first sync whose snapshot the ledger refuses for a full disk', () => {
  it('deletes the agent it registered (still empty), keeps one registered before it, and the next sync once space is freed stores the snapshot at 0', async (ctx) => {
    const sb = await makeSandbox('lineage-full-first-');
    cleanups.push(sb.cleanup);
    fs.mkdirSync(sb.dataDir, { recursive: true });
    const unmount = mountTinyDisk(sb.dataDir, 24 * 1024 * 1024);
    if (!unmount) ctx.skip(); // needs root and mount(8): the real condition is wanted, not a simulation
    cleanups.push(unmount!);
    const env = { ALF_HOME: sb.alfHome };
    const sync = (workspace: string, ...more: string[]) => runCli(['sync', '-r', 'openclaw', '-w', workspace, '--data', sb.dataDir, ...more], env);

    // An agent synced before (the database made), and one registered by an earlier first sync that never uploaded.
    await sb.write('MEMORY.md', '# M\n\n## Gateway\nThe gateway is 10.20.0.5.\n');
    const first = await sync(sb.workspace);
    expect(first.json, first.stderr).toMatchObject({ ok: true, sequence: 0 });
    const synced = (first.json as { agent: { alf_agent_id: string } }).agent.alf_agent_id;
    const earlier = randomUUID();
    const ledger = openLedger(sb.dataDir);
    try {
      expect(registerAgent({ ledger, id: earlier, name: 'killed before its upload', sourceRuntime: 'openclaw', tenantId: null, now: new Date('2026-11-01T09:00:00Z') })).not.toBe('exists');
    } finally {
      ledger.db.sqlite.close();
    }
    const before = agentsIn(sb.dataDir);
    expect(before).toEqual([{ id: synced, latest_sequence: 0 }, { id: earlier, latest_sequence: null }].sort((a, b) => (a.id < b.id ? -1 : 1)));

    const fresh = path.join(sb.root, 'fresh');
    const again = path.join(sb.root, 'again');
    for (const ws of [fresh, again]) {
      fs.mkdirSync(ws, { recursive: true });
      fs.writeFileSync(path.join(ws, 'MEMORY.md'), largeMemory());
    }
    const filler = fillDisk(sb.dataDir, 400 * 1024);

    const full = await sync(fresh);
    expect(full.json, full.stderr).toEqual({
      ok: false, code: 'disk_full', error: `no space left on the disk holding ${sb.dataDir}: free some space and retry (nothing was stored)`,
    });
    // The agent this sync registered is gone again; the others are as they were.
    expect(agentsIn(sb.dataDir)).toEqual(before);

    // A first sync of the agent registered before it: refused the same, that agent is kept.
    const kept = await sync(again, '--agent-id', earlier);
    expect(kept.json, kept.stderr).toMatchObject({ ok: false, code: 'disk_full' });
    expect(agentsIn(sb.dataDir)).toEqual(before);

    fs.rmSync(filler);
    const taken = await sync(fresh);
    expect(taken.json, taken.stderr).toMatchObject({ ok: true, sequence: 0 });
    const id = (taken.json as { agent: { alf_agent_id: string } }).agent.alf_agent_id;
    expect(agentsIn(sb.dataDir).find((a) => a.id === id)).toEqual({ id, latest_sequence: 0 });
  }, 180_000);
});
