import type { ExportResult } from '@/lib/adapters/types';
import { toArchiveRaw } from '@/lib/adapters/shared';
import type { AlfSnapshot } from '@/lib/core/archive/types';
import type { JsonObject } from '@/lib/core/json';
import { ArchiveError } from '@/lib/core/archive/types';
import type { LineBytes } from '@/lib/core/archive/record-lines';
import { asMemoryRecord, recordJson, RecordShapeError, type MemoryRecord } from '@/lib/core/record';

export const ALF_VERSION = '1.0.0';

/**
 * The `.alf` an adapter export becomes (no `sync` block: adapter exports carry none), with its
 * records or the ones given (a sync's reconciled records).
 */
export function snapshotFromExport(exported: Omit<ExportResult, 'records'>, now: Date, records: MemoryRecord[]): AlfSnapshot {
  const manifest: JsonObject = {
    alf_version: ALF_VERSION,
    created_at: now.toISOString(),
    agent: { id: exported.agentId, name: exported.agentName, source_runtime: exported.runtime },
    layers: {},
    // Declared even when the workspace has no raw file, as the reference adapters do.
    raw_sources: [exported.runtime],
  };
  return {
    manifest,
    records,
    layers: { ...exported.layers },
    raw: toArchiveRaw(exported.raw, exported.runtime),
    extra: new Map(),
  };
}

/** Bytes of the buffers the lines below are encoded into, one after another (each line also ends with `\n`). */
const LINE_CHUNK_BYTES = 4 * 1024 * 1024;

/**
 * Each record's JSONL line, for a writer that takes them (`writeSnapshot({ recordLines })`) and for
 * the client-state store: serialized once. The writer takes given lines as checked, so each
 * record is checked here as it would check it (a `bad_record` naming its index).
 *
 * The lines are encoded one after another into a few large buffers, each followed by `\n`, rather
 * than a Buffer each: a first sync of a large store has tens of thousands of lines, and the writer
 * copies a run of adjacent lines as one slice.
 */
export function checkedRecordLines(records: readonly MemoryRecord[]): LineBytes[] {
  let chunk = Buffer.allocUnsafe(0);
  let at = 0;
  return records.map((record, index) => {
    try {
      asMemoryRecord(record, `records[${index}]`);
    } catch (err) {
      if (err instanceof RecordShapeError) throw new ArchiveError('bad_record', `cannot write ${err.message}`);
      throw err;
    }
    const json = recordJson(record);
    // At most 3 bytes per UTF-16 unit, and the `\n`.
    const most = 3 * json.length + 1;
    if (chunk.length - at < most) {
      chunk = Buffer.allocUnsafe(Math.max(LINE_CHUNK_BYTES, most));
      at = 0;
    }
    const start = at;
    const end = start + chunk.write(json, start, 'utf8');
    chunk[end] = 0x0a;
    at = end + 1;
    return { source: chunk, start, end };
  });
}
