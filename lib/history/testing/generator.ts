/**
 * A deterministic generator of agent histories for tests: records in markdown-like files plus raw
 * bytes, mutated turn by turn (create, edit, delete, move between files, planted facts, binary
 * files), turned into REAL archives with the archive writers and ingested through the ledger. It
 * keeps the ground truth the index must reproduce.
 */
import { writeSnapshotRead } from '@/lib/core/archive';
import type { LineBytes } from '@/lib/core/archive/record-lines';
import { writeDeltaRead } from '@/lib/core/archive/write-delta';
import type { AlfSnapshot } from '@/lib/core/archive/types';
import { computeDelta, diffRaw } from '@/lib/core/delta';
import { NS } from '@/lib/core/ids';
import { recordJson, type MemoryRecord } from '@/lib/core/record';
import { uuidV5 } from '@/lib/core/uuid';
import { registerAgent, type Ledger } from '@/lib/ledger';
import { ingestDelta, ingestSnapshot } from '@/lib/storage/embedded-ingest';

import { prng } from '@/lib/core/prng';

const RUNTIME = 'openclaw';
const FILES = ['MEMORY.md', 'memory/2026-01-01.md', 'memory/2026-01-02.md', 'memory/project-alpha.md', 'memory/archive/old.md'];


export interface PlantedFact {
  fact: string;
  seq: number;
  file: string;
  recordId: string;
}

export interface TurnTruth {
  seq: number;
  kind: 'snapshot' | 'delta';
  syncedAt: string;
  /** Effective record ops of this turn: [op, record id]. */
  ops: { op: 'create' | 'update' | 'delete'; recordId: string; file: string }[];
  moves: { from: string; to: string }[];
}

/** A history in progress for one agent. */
export class HistoryGenerator {
  readonly rand: () => number;
  records: MemoryRecord[] = [];
  raw = new Map<string, Uint8Array>();
  /** Ground truth: workspace bytes at each sequence (after the last entry at that sequence). */
  readonly workspaceAt = new Map<number, Map<string, Uint8Array>>();
  readonly recordsAt = new Map<number, MemoryRecord[]>();
  readonly planted: PlantedFact[] = [];
  readonly turns: TurnTruth[] = [];
  latest: number | null = null;
  /** Passed to every ingest: entries this large are appended unindexed, their fold left to a catch-up (pending-index.ts). */
  deferIndexFrom: number | undefined;
  /** Uploads are handed to their ingest as written too (a local sync's: ingest.ts `written`). */
  handWritten = false;
  private counter = 0;
  private base: { records: MemoryRecord[]; raw: Map<string, Uint8Array> } = { records: [], raw: new Map() };
  private pendingMoves: { from: string; to: string }[] = [];
  private pendingFacts: Omit<PlantedFact, 'seq'>[] = [];

  constructor(readonly ledger: Ledger, readonly agentId: string, seed: number, readonly start = Date.parse('2026-03-02T08:00:00Z')) {
    this.rand = prng(seed);
  }

  register(tenantId: string | null = null): void {
    registerAgent({ ledger: this.ledger, id: this.agentId, name: `gen-${this.agentId.slice(0, 4)}`, sourceRuntime: RUNTIME, tenantId, now: new Date(this.start) });
  }

  private pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.rand() * items.length)]!;
  }

  /** Sync time of turn `n`: six hours apart. */
  timeOf(turn: number): Date {
    return new Date(this.start + turn * 6 * 3600_000);
  }

  newRecord(file: string, content: string): MemoryRecord {
    this.counter++;
    const id = uuidV5(NS.alf, `gen:${this.agentId}:${this.counter}`);
    return {
      id, agent_id: this.agentId, content, memory_type: file.startsWith('memory/2026') ? 'episodic' : 'semantic',
      source: { runtime: RUNTIME, origin: 'workspace', origin_file: file },
      temporal: { created_at: '2026-01-01T00:00:00Z' },
      status: 'active', namespace: file === 'MEMORY.md' ? 'curated' : 'daily',
      tags: [file === 'MEMORY.md' ? 'tier:hot' : 'tier:warm', `n${this.counter % 3}`],
      raw_source_format: { heading: `Note ${this.counter}`, line_start: 1, line_end: 2 },
    };
  }

  /** Adds a record holding a fresh fact token; returns the fact. */
  plantFact(file = this.pick(FILES)): string {
    const n = this.counter + 1;
    const hex = Math.floor(this.rand() * 0xffffff).toString(16).padStart(6, '0');
    const fact = `evt-${String(n).padStart(5, '0')}-${hex}`;
    const record = this.newRecord(file, `## Note ${n}\nIncident ${fact.toUpperCase()} seen from 10.0.${n % 250}.17 today.`);
    this.records = [...this.records, record];
    this.pendingFacts.push({ fact, file, recordId: record.id });
    return fact;
  }

  addRecord(file = this.pick(FILES)): MemoryRecord {
    const record = this.newRecord(file, `## Note ${this.counter + 1}\nPlain memory number ${this.counter + 1} about ${this.pick(['redis', 'kafka', 'deploys', 'lunch'])}.`);
    this.records = [...this.records, record];
    return record;
  }

  editRecord(id = this.pick(this.records).id): void {
    this.records = this.records.map((r) => (r.id === id ? { ...r, content: `${r.content}\nEdited at ${this.counter++}.` } : r));
  }

  deleteRecord(id = this.pick(this.records).id): void {
    this.records = this.records.filter((r) => r.id !== id);
  }

  /** Moves a record to another file: delete + create with a new id and the same content. */
  moveRecord(id: string, to: string): string {
    const old = this.records.find((r) => r.id === id);
    if (!old) throw new Error(`no record ${id}`);
    const moved = { ...this.newRecord(to, old.content), content: old.content };
    this.records = [...this.records.filter((r) => r.id !== id), moved];
    this.pendingMoves.push({ from: id, to: moved.id });
    return moved.id;
  }

  /** A random turn of 1–4 mutations. */
  randomMutations(): void {
    const n = 1 + Math.floor(this.rand() * 4);
    for (let i = 0; i < n; i++) {
      const roll = this.rand();
      if (this.records.length < 3 || roll < 0.3) this.addRecord();
      else if (roll < 0.5) this.editRecord();
      else if (roll < 0.6) this.deleteRecord();
      else if (roll < 0.7) {
        const r = this.pick(this.records);
        this.moveRecord(r.id, this.pick(FILES.filter((f) => f !== r.source.origin_file)));
      } else if (roll < 0.8) this.plantFact();
      else this.raw.set('attachments/blob.bin', Uint8Array.from({ length: 64 }, () => Math.floor(this.rand() * 256)));
    }
  }

  /** Raw files: each origin file's record contents joined, plus extra binary files kept in `raw`. */
  rawFiles(): Map<string, Uint8Array> {
    const out = new Map<string, Uint8Array>();
    const byFile = new Map<string, string[]>();
    for (const r of this.records) {
      const file = r.source.origin_file ?? 'unknown.md';
      byFile.set(file, [...(byFile.get(file) ?? []), r.content]);
    }
    for (const [file, parts] of byFile) out.set(`raw/${RUNTIME}/${file}`, new TextEncoder().encode(`${parts.join('\n\n')}\n`));
    for (const [path, bytes] of this.raw) out.set(`raw/${RUNTIME}/${path}`, bytes);
    return out;
  }

  snapshotOf(): AlfSnapshot {
    return {
      manifest: { alf_version: '1.0.0', created_at: '2026-03-01T00:00:00Z', agent: { id: this.agentId, name: 'gen', source_runtime: RUNTIME } },
      records: this.records, layers: {}, raw: this.rawFiles(), extra: new Map(),
    };
  }

  /** Syncs the current state as turn `turn`: a snapshot when first or `rollover`, else a delta. */
  async sync(turn: number, opts: { rollover?: boolean } = {}): Promise<TurnTruth | null> {
    const now = this.timeOf(turn);
    const raw = this.rawFiles();
    const entries = computeDelta(this.base.records, this.records);
    const rawDiff = diffRaw(this.base.raw, raw, RUNTIME);
    let seq: number;
    let kind: 'snapshot' | 'delta';
    if (this.latest === null || opts.rollover) {
      const snapshot = this.snapshotOf();
      // Handed over as written, its records come with their lines (as a sync's first snapshot's do).
      const { bytes, written } = await writeSnapshotRead(snapshot, this.handWritten ? { recordLines: snapshot.records.map(lineOf) } : {});
      seq = (await ingestSnapshot({ ledger: this.ledger, agentId: this.agentId, bytes, now, deferIndexFrom: this.deferIndexFrom, written: written ?? undefined })).sequence;
      kind = 'snapshot';
    } else {
      if (entries.length === 0 && rawDiff.changed.size === 0 && rawDiff.deleted.length === 0) return null;
      const { bytes, written } = await writeDeltaRead({
        manifest: { alf_version: '1.0.0', created_at: now.toISOString(), agent: { id: this.agentId, source_runtime: RUNTIME }, sync: { base_sequence: this.latest, new_sequence: 0 } },
        entries, layers: {}, rawChanged: rawDiff.changed, rawDeleted: rawDiff.deleted,
      });
      seq = (await ingestDelta({ ledger: this.ledger, agentId: this.agentId, baseSequence: this.latest, bytes, now, deferIndexFrom: this.deferIndexFrom, written: this.handWritten ? written : undefined })).sequence;
      kind = 'delta';
    }
    const fileOf = (r: MemoryRecord) => r.source.origin_file ?? '';
    const truth: TurnTruth = {
      seq, kind, syncedAt: now.toISOString(),
      ops: entries.map((e) => ({ op: e.operation, recordId: e.record.id, file: fileOf(e.record) })),
      moves: this.pendingMoves,
    };
    this.turns.push(truth);
    for (const f of this.pendingFacts) this.planted.push({ ...f, seq });
    this.pendingFacts = [];
    this.pendingMoves = [];
    this.latest = seq;
    this.base = { records: [...this.records], raw };
    this.workspaceAt.set(seq, new Map([...raw].map(([p, b]) => [p.replace(`raw/${RUNTIME}/`, ''), b])));
    this.recordsAt.set(seq, [...this.records]);
    return truth;
  }
}

/** A record's line, as a writer takes it given (`recordLines`). */
export function lineOf(record: MemoryRecord): LineBytes {
  const source = Buffer.from(recordJson(record), 'utf8');
  return { source, start: 0, end: source.byteLength };
}
