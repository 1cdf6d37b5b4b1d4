/**
 * The ingest's tree check with the shortcut (checked-tree.ts: no tree read when every changed path
 * is live in a base the checks saw whole) gives the verdict of the full check, on every state real
 * ingests reach: random histories of deltas over conflict-prone paths (file/directory pairs, names
 * equal under NFC), record-only deltas among them whose records reconstruct files the checks never
 * saw, and at each step a random candidate checked both ways before the real ingest takes it.
 */
import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { expect, it } from 'vitest';
import { readDelta, writeDelta } from '@/lib/core/archive';
import type { MemoryRecord } from '@/lib/core/record';
import { checkDeltaServable, isLedgerError, registerAgent } from '@/lib/ledger';
import { ingestDelta, ingestSnapshot } from '@/lib/storage/embedded-ingest';
import { record, snapshotBytes } from '@/tests/server/archives';
import { checkedTreeHolds } from './checked-tree';
import { liveRawFiles } from './current-state';
import { tempLedger } from './testing/temp-ledger';

/** Workspace paths that collide with each other (and with the snapshot's MEMORY.md) in every way the check knows. */
const PATHS = ['MEMORY.md', 'MEMORY.md/x.md', 'a', 'a/b', 'a/b/c.md', 'a/d.md', 'b.md', 'b.md/x.md', 'caf\u00e9.md', 'cafe\u0301.md', 'memory', 'memory/x.md'];
/** Files a record-only delta's records may reconstruct (an OpenClaw origin file: safe, `.md`). */
const ORIGINS = PATHS.filter((p) => p.endsWith('.md'));

const step = fc.oneof(
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('edit' as const), picks: fc.array(fc.nat(), { minLength: 1, maxLength: 2 }) }) },
  { weight: 4, arbitrary: fc.record({ kind: fc.constant('raw' as const), changed: fc.subarray(PATHS, { minLength: 1, maxLength: 3 }), deleted: fc.subarray(PATHS, { maxLength: 2 }) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('records' as const), origin: fc.constantFrom(...ORIGINS) }) },
);

const manifest = (agentId: string, base: number) => ({
  alf_version: '1.0.0', created_at: '2026-05-02T00:00:00Z', agent: { id: agentId, source_runtime: 'openclaw' }, sync: { base_sequence: base, new_sequence: 0 }, changes: {},
});

/** `edit`: files live at the base changed again (what most real syncs are). */
function candidate(agentId: string, base: number, step: StepValue, n: number, live: string[]): Promise<Uint8Array> {
  const s = step.kind === 'edit' ? { kind: 'raw' as const, changed: live.length === 0 ? ['MEMORY.md'] : [...new Set(step.picks.map((i) => live[i % live.length]!))], deleted: [] } : step;
  if (s.kind === 'records') {
    const r = { ...record(agentId, 500 + n, `note ${n}`), namespace: 'notes', source: { runtime: 'openclaw', origin: 'memory_md', origin_file: s.origin } } as MemoryRecord;
    return writeDelta({ manifest: manifest(agentId, base), entries: [{ operation: 'create', record: r }], layers: {}, rawChanged: new Map(), rawDeleted: [] });
  }
  const rawChanged = new Map(s.changed.map((p) => [`raw/openclaw/${p}`, Buffer.from(`${p} at ${n}\n`)] as const));
  return writeDelta({ manifest: manifest(agentId, base), entries: [], layers: {}, rawChanged, rawDeleted: s.deleted.filter((p) => !s.changed.includes(p)).map((p) => `raw/openclaw/${p}`) });
}
type StepValue = { kind: 'raw'; changed: string[]; deleted: string[] } | { kind: 'records'; origin: string } | { kind: 'edit'; picks: number[] };

/** The check's verdict: the refusal's message, or null when it passes. */
function verdict(run: () => void): string | null {
  try {
    run();
    return null;
  } catch (error) {
    if (!isLedgerError(error, 'bad_archive')) throw error;
    return error.message;
  }
}

it('the tree check skips reading the tree only where the full check would pass: same verdict on every state random histories reach', async () => {
  let shortcuts = 0;
  let reconstructedStates = 0;
  await fc.assert(fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 24 }), async (steps) => {
    const t = tempLedger();
    try {
      const agentId = randomUUID();
      const now = new Date('2026-05-01T00:00:00Z');
      registerAgent({ ledger: t.ledger, id: agentId, name: 'tree', sourceRuntime: 'openclaw', tenantId: null, now });
      await ingestSnapshot({ ledger: t.ledger, agentId, bytes: await snapshotBytes(agentId), now });
      let base = 0;
      for (const [n, s] of steps.entries()) {
        const live = () => liveRawFiles(t.ledger.db.db, agentId, base).map((f) => f.path);
        const bytes = await candidate(agentId, base, s as StepValue, n, live());
        const delta = await readDelta(bytes);
        const holds = (paths: string[]) => checkedTreeHolds(t.ledger.db.db, agentId, base, paths);
        const full = verdict(() => checkDeltaServable(delta, live));
        expect(verdict(() => checkDeltaServable(delta, live, holds))).toBe(full);
        if (delta.rawChanged.size > 0 && holds([...delta.rawChanged.keys()].map((p) => p.slice('raw/openclaw/'.length)))) shortcuts++;
        if (!checkedTreeHolds(t.ledger.db.db, agentId, base, [])) reconstructedStates++;
        // The real ingest (the shortcut wired in) agrees, and moves the history on when it accepts.
        try {
          base = (await ingestDelta({ ledger: t.ledger, agentId, baseSequence: base, bytes, now })).sequence;
          expect(full).toBeNull();
        } catch (error) {
          if (!isLedgerError(error, 'bad_archive')) throw error;
          expect(error.message).toBe(full);
        }
      }
    } finally {
      t.cleanup();
    }
  }), { numRuns: 60 });
  // The histories exercised both sides: shortcuts taken, and bases a reconstructed file keeps on the full check.
  expect(shortcuts).toBeGreaterThan(20);
  expect(reconstructedStates).toBeGreaterThan(20);
}, 240_000);
