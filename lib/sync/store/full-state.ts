/**
 * The store written whole from a sync that read its base from a `.alf` (or had none: a first
 * sync): every record-bearing file's rows from the export's slots and the reconcile's records, and
 * every file's bytes. The first write of a store, and the one after a restore, a rebase or an
 * adoption (which keep their base as a `.alf`).
 */
import type { SlotExport } from '@/lib/adapters/types';
import { RECORD_STATE_VERSION } from '@/lib/adapters/openclaw/records';
import type { LineBytes } from '@/lib/core/archive/record-lines';
import { partitionFileOf } from '@/lib/core/archive/partitions';
import { recordJson, type MemoryRecord } from '@/lib/core/record';
import type { StoreIndex } from './index-file';
import type { ReconcileCode } from './reconcile-known';
import { isStable } from './stable';
import { prepareState, type NextFile, type NextRow, type PreparedState } from './write-state';

export interface FullState {
  sequence: number;
  now: Date;
  workspace: string;
  exported: SlotExport;
  /** One per slot: the records this sync made of them. */
  records: readonly MemoryRecord[];
  /** Per slot: its line when the caller has it (the base line it paired early with, or its own serialization). */
  lines: readonly (LineBytes | undefined)[] | null;
  /** Every record is its own extraction (a first sync): each pairs early with its line next time. */
  allEarly: boolean;
  /** Per slot: the partition of an output that stands for its base line (a known record), else undefined. */
  placed: readonly (string | undefined)[] | null;
  /** Whether the base this state stands for keeps its raw files Stored (a sync's next base) or Deflated (a first sync's: the upload). */
  storeRaw: boolean;
}

/** The store's log written whole (write-state.ts `prepareState`), before the sequence is known: `commit(sequence)` names it. */
export async function prepareFullState(code: ReconcileCode, args: { stateDir: string; agentId: string; current: StoreIndex | null; state: Omit<FullState, 'sequence'> }): Promise<PreparedState> {
  const { state, agentId } = args;
  const { exported } = state;
  const files: NextFile[] = [];
  const recordFiles = new Set<string>();
  let j = 0;
  for (const { rel, count } of exported.slotFiles ?? []) {
    recordFiles.add(rel);
    const rows: NextRow[] = [];
    for (const end = j + count; j < end; j++) {
      const record = state.records[j]!;
      const line = state.lines?.[j];
      const early = state.allEarly || line !== undefined;
      rows.push({
        key: exported.slots[j]!.key, early, id: record.id,
        partition: state.placed?.[j] ?? partitionFileOf(record),
        line: line ? line.source.subarray(line.start, line.end) : Buffer.from(recordJson(record), 'utf8'),
      });
    }
    const stat = exported.fileStats!.get(rel)!;
    const slots = exported.slots.slice(j - count, j);
    const kind = isStable(code, { agentId, rows, slots, log: null }) ? 's' : 'u';
    files.push({ rel, stat, digest: stat.digest, kind, raw: exported.raw.get(rel)!, rows });
  }
  for (const [rel, bytes] of exported.raw) {
    if (recordFiles.has(rel)) continue;
    const stat = exported.fileStats?.get(rel);
    files.push({ rel, stat: stat ?? { ino: 0n, size: 0n, mtimeNs: 0n, ctimeNs: 0n }, digest: null, kind: stat ? 'n' : 'r', raw: bytes, rows: null });
  }
  return prepareState({
    stateDir: args.stateDir, agentId, current: args.current, fresh: true,
    next: {
      context: exported.statContext ?? 'flat', files,
      meta: { agent_name: exported.agentName, workspace: state.workspace, created_at: state.now.toISOString(), key_version: RECORD_STATE_VERSION, layers: exported.layers, store_raw: state.storeRaw },
    },
  });
}
