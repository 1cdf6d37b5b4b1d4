/**
 * The history index's side of record-only deltas (lib/adapters/openclaw/record-files.ts): after a
 * delta's record versions are written, the OpenClaw files it changed through its records alone get
 * a `raw_file_versions` row rendered from the records, marked `reconstructed`. Decided and rendered
 * by the same functions as the restore fold, through the fold's `IndexTarget`, so the incremental
 * indexer and the rebuild write the same rows.
 */
import { filesTouchedByRecords, renderFiles, type TouchedRecord } from '@/lib/adapters/openclaw/record-files';
import type { MemoryRecord } from '@/lib/core/record';
import { sha256Hex } from '@/lib/core/uuid';
import type { DerivedOp, RecordFields } from './index-rows';
import type { IndexTarget } from './indexer';
import type { PreparedRawFile } from './ledger-blob';

/** Writes the rendered files of a delta entry; returns how many versions it wrote. */
export function indexRecordFiles(
  target: IndexTarget,
  at: { agentId: string; seq: number },
  ops: readonly DerivedOp[],
  raw: { rawChanged: readonly PreparedRawFile[]; rawDeleted: readonly string[] },
): number {
  // Only OpenClaw records are rendered (canonical JSON: `"runtime":"openclaw"` inside `source`).
  if (!ops.some((o) => o.fields.record_json.includes('"runtime":"openclaw"'))) return 0;
  const carried = new Set([...raw.rawChanged.map((f) => f.path), ...raw.rawDeleted]);
  if (allCarried(target, ops, carried)) return 0;
  const parse = (json: string) => JSON.parse(json) as MemoryRecord;
  const touched: TouchedRecord[] = ops.map((o) => ({
    before: o.op === 'create' || !o.prev ? null : parse(o.prev.record_json),
    after: o.op === 'delete' ? null : parse(o.fields.record_json),
  }));
  const files = filesTouchedByRecords(touched, carried);
  if (files.length === 0) return 0;
  const heads = target.rawHeads(files);
  const live = target.liveRecords().map((r) => parse(r.record_json));
  const rendered = renderFiles(files, live, (path) => typeof heads.get(path) === 'string');
  let written = 0;
  for (const [path, bytes] of rendered.changed) {
    const sha256 = sha256Hex(bytes);
    if (heads.get(path) === sha256) continue;
    target.putObject(sha256, bytes);
    target.insertRawVersion({ agent_id: at.agentId, path, seq: at.seq, entry_kind: 'delta', sha256, size: bytes.byteLength, deleted: 0, reconstructed: 1 });
    written++;
  }
  for (const path of rendered.deleted) {
    target.insertRawVersion({ agent_id: at.agentId, path, seq: at.seq, entry_kind: 'delta', sha256: null, size: 0, deleted: 1 });
    written++;
  }
  return written;
}

/**
 * Whether every file the ops touch is one the delta carries raw, told from the index fields alone
 * (no record parsed) — always so for deltas that carry their raw channel, as ours do. `null` from
 * `knownFile` (a file the fields cannot tell) sends the entry down the exact path.
 */
function allCarried(target: IndexTarget, ops: readonly DerivedOp[], carried: ReadonlySet<string>): boolean {
  for (const o of ops) {
    const files = [o.op === 'update' && o.prev ? knownFile(target.tombstoneFields(o.prev)) : undefined, knownFile(o.fields)];
    for (const file of files) if (file !== undefined && (file === null || !carried.has(file))) return false;
  }
  return true;
}

/** The file `targetFile` gives a record, when its index fields tell it: curated → MEMORY.md, else a markdown origin. */
function knownFile(fields: RecordFields): string | null {
  if (fields.namespace === 'curated') return 'MEMORY.md';
  return fields.origin_file?.endsWith('.md') ? fields.origin_file : null;
}
