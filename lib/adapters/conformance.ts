/**
 * The conformance suite every adapter runs (STYLE.md habit 7). Adapters never diff: these
 * checks go through the same reconcile + computeDelta a sync uses, so a store's edits must
 * come out as the record operations a user would expect.
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { computeDelta, countOps } from '@/lib/core/delta';
import { reconcile } from '@/lib/core/reconcile';
import { isNeverRaw, toArchiveRaw } from './shared';
import { getAdapter } from './index';
import type { ExportResult, Runtime } from './types';

export interface ConformanceStore {
  workspace: string;
  runtimeAgent?: string;
}

export interface ConformanceHarness {
  runtime: Runtime;
  /**
   * Creates a fresh store holding at least three memory items, and the files its identity and
   * principal layers are read from, if the runtime has any (their mtimes set to the microsecond,
   * what a restore can set back).
   */
  create(): Promise<ConformanceStore>;
  /** Changes the order of items without changing any item. */
  reorder(store: ConformanceStore): Promise<void>;
  /** Edits the body of exactly one item in place; returns a substring of its new content. */
  editInPlace(store: ConformanceStore): Promise<string>;
  /** Removes exactly one item; returns a substring of its content. */
  removeItem(store: ConformanceStore): Promise<string>;
  cleanup(store: ConformanceStore): Promise<void>;
}

const clock = () => new Date('2026-06-01T12:00:00Z');

export function runAdapterConformance(harness: ConformanceHarness): void {
  const adapter = getAdapter(harness.runtime);
  const exportStore = (store: ConformanceStore): Promise<ExportResult> =>
    adapter.exportWorkspace({ workspace: store.workspace, runtimeAgent: store.runtimeAgent, persistAgentId: true, clock });

  async function withStore(fn: (store: ConformanceStore) => Promise<void>): Promise<void> {
    const store = await harness.create();
    try {
      await fn(store);
    } finally {
      await harness.cleanup(store);
    }
  }

  /** Exports, applies a mutation, exports again, and returns the ops a sync would upload. */
  async function opsAfter(store: ConformanceStore, mutate: () => Promise<unknown>) {
    const before = await exportStore(store);
    const base = reconcile({ agentId: before.agentId, prev: [], curr: before.records }).records;
    await mutate();
    const after = await exportStore(store);
    const next = reconcile({ agentId: after.agentId, prev: base, curr: after.records }).records;
    return { base, ops: computeDelta(base, next) };
  }

  describe(`adapter conformance: ${harness.runtime}`, () => {
    it('exports deterministically', () =>
      withStore(async (store) => {
        const a = await exportStore(store);
        const b = await exportStore(store);
        expect(b.records).toEqual(a.records);
        expect(b.layers).toEqual(a.layers);
        expect([...b.raw.keys()]).toEqual([...a.raw.keys()]);
        for (const [p, bytes] of a.raw) expect(Buffer.from(b.raw.get(p)!).equals(Buffer.from(bytes))).toBe(true);
        expect(a.records.length).toBeGreaterThanOrEqual(3);
        expect(new Set(a.records.map((r) => r.id)).size).toBe(a.records.length);
      }));

    it('names its agent through onAgentId once, before the export finishes, with the exported id', () =>
      withStore(async (store) => {
        const named: string[] = [];
        const result = await adapter.exportWorkspace({
          workspace: store.workspace, runtimeAgent: store.runtimeAgent, persistAgentId: true, clock, onAgentId: (id) => named.push(id),
        });
        expect(named).toEqual([result.agentId]);
      }));

    it('carries raw files byte-exact and never the control files', () =>
      withStore(async (store) => {
        const result = await exportStore(store);
        expect(result.raw.size).toBeGreaterThan(0);
        for (const [rel, bytes] of result.raw) {
          expect(isNeverRaw(rel)).toBe(false);
          const onDisk = await fs.readFile(path.join(store.workspace, rel)).catch(() => null);
          // Synthesized sidecars (schemas, redacted configs) have no byte-identical file on disk.
          if (onDisk && !/\.alf-.*-schema\.json$|config\.(yaml|toml)$/.test(rel)) expect(onDisk.equals(Buffer.from(bytes))).toBe(true);
        }
      }));

    it('a workspace restored from its export exports the same identity and principal layers', () =>
      withStore(async (store) => {
        const exported = await exportStore(store);
        const out = await fs.mkdtemp(path.join(os.tmpdir(), `conf-restored-${harness.runtime}-`));
        try {
          await adapter.importSnapshot({
            snapshot: {
              manifest: { alf_version: '1.0.0', agent: { id: exported.agentId, name: exported.agentName, source_runtime: exported.runtime } },
              records: exported.records,
              layers: exported.layers,
              raw: toArchiveRaw(exported.raw, exported.runtime),
              extra: new Map(),
            },
            target: out,
            runtimeAgent: store.runtimeAgent,
            live: false,
            clock,
          });
          const again = await adapter.exportWorkspace({ workspace: out, runtimeAgent: store.runtimeAgent, persistAgentId: false, clock });
          expect(again.layers).toEqual(exported.layers);
        } finally {
          await fs.rm(out, { recursive: true, force: true });
        }
      }));

    it('re-ordering produces no record operations', () =>
      withStore(async (store) => {
        const { ops } = await opsAfter(store, () => harness.reorder(store));
        expect(ops).toEqual([]);
      }));

    it('an in-place edit is one update with the same id', () =>
      withStore(async (store) => {
        let marker = '';
        const { base, ops } = await opsAfter(store, async () => (marker = await harness.editInPlace(store)));
        expect(countOps(ops)).toEqual({ creates: 0, updates: 1, deletes: 0 });
        expect(ops[0]!.record.content).toContain(marker);
        expect(base.some((r) => r.id === ops[0]!.record.id)).toBe(true);
      }));

    it('a removed item is one delete', () =>
      withStore(async (store) => {
        let marker = '';
        const { ops } = await opsAfter(store, async () => (marker = await harness.removeItem(store)));
        expect(countOps(ops)).toEqual({ creates: 0, updates: 0, deletes: 1 });
        expect(ops[0]!.record.content).toContain(marker);
      }));
  });
}
