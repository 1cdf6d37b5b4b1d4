import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { insert, seedStateDb, writeFiles } from '@/lib/adapters/hermes/test-support';
import { seedBrainDb } from '@/lib/adapters/zeroclaw/test-support';
import type { Runtime } from '@/lib/adapters/types';
import { localTarget } from './local-target';
import { statePaths } from './state';
import { storeStatPath } from './store-stat';
import { syncWorkspace, type SyncOutput } from './sync';
import { readTree } from './testing/workspace';

const AGENT = '5d1c7e2a-3b4f-4a6e-8c9d-0e1f2a3b4c5d';
const ZC_AGENT = 'aaaaaaaa-0000-4000-8000-00000000000a';
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

type Op = { kind: 'insert' | 'update' | 'delete' | 'idle' | 'touch' | 'file'; n: number };
const op = fc.record({ kind: fc.constantFrom<Op['kind']>('insert', 'update', 'delete', 'idle', 'idle', 'touch', 'file'), n: fc.nat(4) });

/** Each runtime's store: seeded, then one operation of a history applied to it (the same on both sides). */
const STORES: Record<'zeroclaw' | 'hermes', { db: string; runtimeAgent?: string; seed(ws: string): Promise<void>; apply(ws: string, o: Op, step: number): Promise<void> }> = {
  zeroclaw: {
    db: 'memory/brain.db',
    runtimeAgent: 'scout',
    async seed(ws) {
      await seedBrainDb({ workspace: ws, agents: [{ id: ZC_AGENT, alias: 'scout', created_at: '2026-05-01T00:00:00Z' }], rows: [0, 1, 2].map((k) => ({
        id: `10000000-0000-4000-8000-00000000000${k}`, key: `k${k}`, content: `fact ${k}`, agent_id: ZC_AGENT, created_at: `2026-05-0${k + 1}T10:00:00Z`, updated_at: `2026-05-0${k + 1}T10:00:00Z`,
      })) });
    },
    async apply(ws, o, step) {
      const db = new Database(path.join(ws, 'memory/brain.db'));
      try {
        if (o.kind === 'insert') db.prepare("INSERT INTO memories (id, key, content, category, created_at, updated_at, agent_id) VALUES (?, ?, ?, 'core', '2026-06-01T10:00:00Z', '2026-06-01T10:00:00Z', ?)").run(`20000000-0000-4000-8000-${String(step).padStart(12, '0')}`, `s${step}`, `new fact ${step}`, ZC_AGENT);
        if (o.kind === 'update') db.prepare('UPDATE memories SET content = ? WHERE rowid = (SELECT rowid FROM memories ORDER BY id LIMIT 1 OFFSET ?)').run(`edited ${step}`, o.n % 3);
        if (o.kind === 'delete') db.prepare('DELETE FROM memories WHERE rowid = (SELECT rowid FROM memories ORDER BY id LIMIT 1 OFFSET ?)').run(o.n % 3);
      } finally {
        db.close();
      }
      await common(ws, 'memory/brain.db', o, step);
    },
  },
  hermes: {
    db: 'state.db',
    async seed(ws) {
      await seedStateDb(ws, [{ id: 'sess-1', source: 'cli', title: 'Deploy review', started_at: 1780000000, ended_at: 1780000600 }], [
        { session_id: 'sess-1', role: 'user', content: 'Review the deploy', timestamp: 1780000010 },
      ]);
      await writeFiles(ws, { 'memories/MEMORY.md': 'Always run tests first.\n', 'memories/USER.md': 'Name: Dana\n' });
    },
    async apply(ws, o, step) {
      const db = new Database(path.join(ws, 'state.db'));
      try {
        if (o.kind === 'insert') insert(db, 'sessions', { id: `sess-${step + 10}`, source: 'cli', title: `Session ${step}`, started_at: 1780001000 + step, ended_at: 1780001500 + step });
        if (o.kind === 'update') insert(db, 'messages', { session_id: 'sess-1', role: 'user', content: `More ${step}`, timestamp: 1780000020 + step });
        if (o.kind === 'delete') db.prepare('DELETE FROM messages WHERE id = (SELECT MAX(id) FROM messages)').run();
      } finally {
        db.close();
      }
      await common(ws, 'state.db', o, step);
    },
  },
};

/** What both runtimes share: a store touched (stat data only) and a file beside it edited. */
async function common(ws: string, db: string, o: Op, step: number): Promise<void> {
  // The same mtimes on both sides (an export may read them: Hermes's curated records do).
  const at = new Date(Date.parse('2026-10-01T00:00:00Z') + step * 60_000);
  if (o.kind === 'touch') await fs.utimes(path.join(ws, db), at, at);
  if (o.kind === 'file') {
    await fs.mkdir(path.join(ws, 'memory'), { recursive: true });
    await fs.writeFile(path.join(ws, 'memory', `note-${o.n}.md`), `note ${step}\n`);
    await fs.utimes(path.join(ws, 'memory', `note-${o.n}.md`), at, at);
  }
}

/** Every file of a freshly seeded workspace gets one fixed mtime (the two sides were seeded apart). */
async function sameMtimes(ws: string): Promise<void> {
  const at = new Date('2026-09-01T00:00:00Z');
  for (const rel of (await readTree(ws)).keys()) await fs.utimes(path.join(ws, rel), at, at);
}

/**
 * Twin clients of the same store history: `stat` as a sync normally runs, `plain` with its store
 * stat removed before every sync (so it always exports, as before the store stat). Both read one
 * clock that stands still during a sync (the idle path asks it less often than an export does).
 * Uploads, outputs and kept bases must be the same bytes; an idle sync after an idle one is found
 * idle from the stat data alone.
 */
describe.each(['zeroclaw', 'hermes'] as const)('%s: syncs that trust the store stat do what syncs that export every time do', (runtime) => {
  it('same outputs, uploads and bases over random histories', async () => {
    const store = STORES[runtime];
    await fc.assert(
      fc.asyncProperty(fc.array(op, { minLength: 1, maxLength: 4 }), async (ops) => {
        const root = await fs.mkdtemp(path.join(os.tmpdir(), `lineage-store-twin-${runtime}-`));
        try {
          let now = Date.parse('2026-11-01T09:00:00Z');
          const clock = () => new Date(now);
          const sides = (['stat', 'plain'] as const).map((name) => {
            const dir = path.join(root, name);
            return { name, workspace: path.join(dir, 'ws'), alfHome: path.join(dir, 'alf-home'), dataDir: path.join(dir, 'data'), target: localTarget(path.join(dir, 'data'), clock), logs: [] as string[] };
          });
          for (const s of sides) {
            await store.seed(s.workspace);
            await fs.writeFile(path.join(s.workspace, '.alf-agent-id'), AGENT);
            await sameMtimes(s.workspace);
          }
          const history: Op[] = [{ kind: 'idle', n: 0 }, ...ops, { kind: 'idle', n: 0 }, { kind: 'idle', n: 0 }];
          for (let step = 0; step < history.length; step++) {
            for (const s of sides) await store.apply(s.workspace, history[step]!, step);
            // Past the racy window of what was just written (ctime cannot be set back).
            await sleep(1100);
            now += 3_600_000;
            const outs: SyncOutput[] = [];
            for (const s of sides) {
              const key = { runtime: runtime as Runtime, workspace: s.workspace, runtimeAgent: store.runtimeAgent };
              if (s.name === 'plain') await fs.rm(storeStatPath(s.alfHome, key), { force: true });
              s.logs.length = 0;
              outs.push(await syncWorkspace({ runtime, workspace: s.workspace, runtimeAgent: store.runtimeAgent, target: s.target, alfHome: s.alfHome, clock, log: (l) => s.logs.push(l) }));
            }
            const strip = (o: SyncOutput) => ({ ...o, snapshot_path: undefined });
            expect(strip(outs[0]!)).toEqual(strip(outs[1]!));
            const [a, b] = await Promise.all(sides.map((s) => readTree(path.join(s.dataDir, 'blobs'))));
            expect([...a!.keys()]).toEqual([...b!.keys()]);
            for (const [name, bytes] of a!) expect(bytes.equals(b!.get(name)!), name).toBe(true);
            const agentId = outs[0]!.agent.alf_agent_id;
            const [baseA, baseB] = await Promise.all(sides.map((s) => fs.readFile(statePaths(s.alfHome, agentId).snapshot)));
            expect(baseA!.equals(baseB!)).toBe(true);
          }
          // The last two steps changed nothing: the second was idle without an export.
          expect(sides[0]!.logs.some((l) => l.includes('the store\'s files are as the last sync saw them'))).toBe(true);
          expect(sides[1]!.logs.some((l) => l.includes('the store\'s files are as the last sync saw them'))).toBe(false);
        } finally {
          await fs.rm(root, { recursive: true, force: true });
        }
      }),
      { numRuns: 4, seed: 20261202, endOnFailure: true },
    );
  }, 600_000);
});
