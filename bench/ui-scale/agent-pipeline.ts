/**
 * One generated OpenClaw agent pushed through the real sync steps without re-reading its whole
 * workspace on every turn: turn 0 is a real `syncWorkspace` (export, snapshot, ingest, index); each
 * later turn builds the records of the files it changed with the adapter's own record builder,
 * reconciles them against those files' previous records (the passes pair records of one file — ids
 * are born from the file's path — and the ids of every other file are reserved, so a create is
 * reminted exactly as a whole-workspace reconcile would), and hands `buildDelta`'s archive to the
 * local target's ingest + indexer. A 50,000-record agent then costs per turn what its turn changed.
 *
 * `prove()` writes the in-memory state as the client's base and runs one more real `syncWorkspace`
 * over the files written to disk: it must find nothing to upload, or the generator drifted from
 * what real syncs produce and the build fails.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { getAdapter } from '@/lib/adapters';
import { handlerFor, tierFor } from '@/lib/adapters/openclaw/handlers';
import { fileRecords, sortByCreatedAt } from '@/lib/adapters/openclaw/records';
import type { ExportResult } from '@/lib/adapters/types';
import { readSnapshot, writeDelta, writeSnapshot } from '@/lib/core/archive';
import { computeDelta } from '@/lib/core/delta';
import type { MemoryRecord } from '@/lib/core/record';
import { reconcile } from '@/lib/core/reconcile';
import { snapshotFromExport } from '@/lib/sync/snapshot';
import { readBaseSnapshot, writeClientState } from '@/lib/sync/state';
import { buildDelta, syncWorkspace } from '@/lib/sync/sync';
import type { SyncTarget } from '@/lib/sync/target';
import type { TurnChange } from '../history/generate';
import { applyTurn } from '../history/replay';

const ENC = new TextEncoder();
/** mtime as the adapter formats it for a whole-second utimes stamp. */
const mtimeOf = (time: Date) => `${time.toISOString().slice(0, 19)}Z`;
const isRecordFile = (p: string) => p === 'MEMORY.md' || (p.startsWith('memory/') && p.endsWith('.md'));

export interface PipelineClock { set(time: Date): void; clock: () => Date }

export class AgentPipeline {
  private template: Omit<ExportResult, 'records' | 'raw'> | null = null;
  private readonly raw = new Map<string, Uint8Array>();
  private readonly recordsByFile = new Map<string, MemoryRecord[]>();
  private readonly ids = new Set<string>();
  private sequence = -1;
  private lastTime = new Date(0);
  private readonly alfHome: string;

  constructor(readonly agentId: string, readonly workspace: string, alfRoot: string, private readonly target: SyncTarget, private readonly time: PipelineClock) {
    this.alfHome = path.join(alfRoot, agentId);
  }

  get latestSequence(): number {
    return this.sequence;
  }

  get recordCount(): number {
    return this.ids.size;
  }

  private realSync() {
    return syncWorkspace({ runtime: 'openclaw', workspace: this.workspace, target: this.target, alfHome: this.alfHome, clock: this.time.clock });
  }

  /** Applies one turn to the workspace directory and syncs it; returns the new sequence. */
  async turn(change: TurnChange): Promise<number> {
    this.time.set(change.time);
    if (this.sequence < 0) {
      await fs.mkdir(this.workspace, { recursive: true });
      await fs.writeFile(path.join(this.workspace, '.alf-agent-id'), this.agentId);
    }
    await applyTurn(this.workspace, change);
    const sequence = this.sequence < 0 ? await this.first(change) : await this.delta(change);
    if (sequence !== this.sequence + 1) throw new Error(`agent ${this.agentId}: turn became sequence ${sequence}, expected ${this.sequence + 1}`);
    this.sequence = sequence;
    this.lastTime = change.time;
    return sequence;
  }

  private async first(change: TurnChange): Promise<number> {
    const out = await this.realSync();
    const base = await readSnapshot((await readBaseSnapshot(this.alfHome, this.agentId))!);
    const exported = await getAdapter('openclaw').exportWorkspace({ workspace: this.workspace, persistAgentId: true, clock: this.time.clock });
    const { records: _r, raw: _w, ...template } = exported;
    this.template = template;
    for (const [p, text] of change.writes) this.raw.set(p, ENC.encode(text));
    for (const record of base.records) {
      const file = record.source?.origin_file as string;
      const list = this.recordsByFile.get(file) ?? [];
      list.push(record);
      this.recordsByFile.set(file, list);
      this.ids.add(record.id);
    }
    return out.sequence;
  }

  private async delta(change: TurnChange): Promise<number> {
    const oldRaw = new Map<string, Uint8Array>();
    const newRaw = new Map<string, Uint8Array>();
    const oldRecords: MemoryRecord[] = [];
    const newRecords: MemoryRecord[] = [];
    const touched = [...change.deletes, ...change.writes.keys()];
    for (const p of touched) {
      const before = this.raw.get(p);
      if (before) oldRaw.set(p, before);
      const records = this.recordsByFile.get(p) ?? [];
      oldRecords.push(...records);
      for (const r of records) this.ids.delete(r.id);
    }
    for (const p of change.deletes) {
      this.raw.delete(p);
      this.recordsByFile.delete(p);
    }
    for (const [p, text] of change.writes) {
      const bytes = ENC.encode(text);
      this.raw.set(p, bytes);
      newRaw.set(p, bytes);
      const handler = isRecordFile(p) ? handlerFor(p) : null;
      if (!handler) continue;
      const fresh = fileRecords(this.agentId, { relPath: p, text, mtime: mtimeOf(change.time), handler, tier: tierFor(p, true) });
      const { records } = reconcile({ agentId: this.agentId, prev: this.recordsByFile.get(p) ?? [], curr: fresh, reserved: (id) => this.ids.has(id) });
      this.recordsByFile.set(p, records);
      for (const r of records) this.ids.add(r.id);
      newRecords.push(...records);
    }
    const template = this.template!;
    const base = snapshotFromExport({ ...template, raw: oldRaw }, this.lastTime, oldRecords);
    const current = snapshotFromExport({ ...template, raw: newRaw }, change.time, newRecords);
    const delta = buildDelta({
      base, current, entries: computeDelta(oldRecords, newRecords), baseSequence: this.sequence, runtime: 'openclaw',
      agentId: this.agentId, now: change.time, baseTimestamp: this.lastTime.toISOString(),
    });
    if (!delta) throw new Error(`agent ${this.agentId}: turn after sequence ${this.sequence} changed nothing`);
    return (await this.target.pushDelta(this.agentId, this.sequence, await writeDelta(delta))).sequence;
  }

  /** The whole in-memory state as the client's base, then a real sync that must find no changes. */
  async prove(): Promise<void> {
    const records = sortByCreatedAt([...this.recordsByFile.values()].flat());
    const snapshot = snapshotFromExport({ ...this.template!, raw: this.raw }, this.lastTime, records);
    await writeClientState({
      alfHome: this.alfHome,
      state: { agent_id: this.agentId, last_synced_sequence: this.sequence, last_synced_at: this.lastTime.toISOString() },
      baseSnapshot: await writeSnapshot(snapshot),
    });
    this.time.set(new Date(this.lastTime.getTime() + 60_000));
    const out = await this.realSync();
    if (!out.no_changes || out.sequence !== this.sequence) {
      throw new Error(`agent ${this.agentId}: the generator diverged from syncWorkspace: a real sync after the build gave ${JSON.stringify(out.changes ?? out).slice(0, 400)}`);
    }
  }
}
