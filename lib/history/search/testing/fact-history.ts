/**
 * Test helper: an agent's memory as a list of states (record id → file and content), each synced
 * through the real ledger (a snapshot first, then deltas) so the index is built by the real
 * indexer. It keeps every state for brute-force checks.
 */
import { writeDelta, writeSnapshot } from '@/lib/core/archive';
import { computeDelta } from '@/lib/core/delta';
import type { MemoryRecord } from '@/lib/core/record';
import { registerAgent, type Ledger } from '@/lib/ledger';
import { ingestDelta, ingestSnapshot } from '@/lib/storage/embedded-ingest';

export interface MemoryState { id: string; file: string; content: string }

const RUNTIME = 'openclaw';

function toRecord(agentId: string, m: MemoryState): MemoryRecord {
  return {
    id: m.id, agent_id: agentId, content: m.content, memory_type: 'semantic',
    source: { runtime: RUNTIME, origin: 'workspace', origin_file: m.file },
    temporal: { created_at: '2026-01-01T00:00:00Z' }, status: 'active', namespace: 'daily', tags: [],
  };
}

export class FactHistory {
  /** states[seq] = the live records after that sync. */
  readonly states: MemoryState[][] = [];
  readonly syncedAt: string[] = [];
  private base: MemoryRecord[] = [];

  constructor(readonly ledger: Ledger, readonly agentId: string, private readonly start: number, private readonly stepMs = 3600_000) {}

  register(name = 'agent'): this {
    registerAgent({ ledger: this.ledger, id: this.agentId, name, sourceRuntime: RUNTIME, tenantId: null, now: new Date(this.start) });
    return this;
  }

  /**
   * A rollover: `state` uploaded as a snapshot, which lands at the latest sequence beside its delta
   * (a record it changes then has two entries at that sequence, the snapshot's the later one).
   */
  async rollover(state: readonly MemoryState[]): Promise<number> {
    const seq = this.states.length - 1;
    const now = new Date(this.start + seq * this.stepMs + 60_000);
    const records = state.map((m) => toRecord(this.agentId, m));
    const bytes = await writeSnapshot({
      manifest: { alf_version: '1.0.0', created_at: now.toISOString(), agent: { id: this.agentId, name: 'agent', source_runtime: RUNTIME } },
      records, layers: {}, raw: new Map(), extra: new Map(),
    });
    const sequence = (await ingestSnapshot({ ledger: this.ledger, agentId: this.agentId, bytes, now })).sequence;
    this.base = records;
    this.states[seq] = state.map((m) => ({ ...m }));
    return sequence;
  }

  /** Syncs `state` as the next sequence; returns it (null, and no sequence, when nothing changed). */
  async sync(state: readonly MemoryState[]): Promise<number | null> {
    const seq = this.states.length;
    const now = new Date(this.start + seq * this.stepMs);
    const records = state.map((m) => toRecord(this.agentId, m));
    if (seq === 0) {
      const bytes = await writeSnapshot({
        manifest: { alf_version: '1.0.0', created_at: now.toISOString(), agent: { id: this.agentId, name: 'agent', source_runtime: RUNTIME } },
        records, layers: {}, raw: new Map(), extra: new Map(),
      });
      await ingestSnapshot({ ledger: this.ledger, agentId: this.agentId, bytes, now });
    } else {
      const entries = computeDelta(this.base, records);
      if (entries.length === 0) return null;
      const bytes = await writeDelta({
        manifest: { alf_version: '1.0.0', created_at: now.toISOString(), agent: { id: this.agentId, source_runtime: RUNTIME }, sync: { base_sequence: seq - 1, new_sequence: 0 } },
        entries, layers: {}, rawChanged: new Map(), rawDeleted: [],
      });
      await ingestDelta({ ledger: this.ledger, agentId: this.agentId, baseSequence: seq - 1, bytes, now });
    }
    this.base = records;
    this.states.push(state.map((m) => ({ ...m })));
    this.syncedAt.push(now.toISOString());
    return seq;
  }
}
