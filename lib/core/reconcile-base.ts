import type { LineBytes, RecordLines } from './archive/record-lines';
import { isOwnPartitionFile, partitionFileOf } from './archive/partitions';
import { lineOnlyRecord } from './archive/write-snapshot';
import type { DeltaEntry } from './archive/types';
import { computeDelta } from './delta';
import { isJsonObject } from './json';
import { recordJson, type MemoryRecord, type RecordTemporal } from './record';
import { carryIdentity, reconcile, type ReconcileStats } from './reconcile';
import { rustTrimEnd } from './rust-str';

/**
 * What reconcileWithBase reads of a base: the surface of {@link RecordLines}. A sync whose client
 * state keeps record lines per source file gives only the lines of the files it reconciles, read on
 * demand (lib/sync/store/base-lines.ts).
 */
export type BaseLines = Pick<RecordLines, 'length' | 'idIndex' | 'partitionFile' | 'timestamps' | 'bytesOf' | 'equals' | 'text' | 'record' | 'assertUniqueIds' | 'idHint'>;

/**
 * An extracted record its caller knows to pair early, unchanged, with the base line of record
 * `id` (a sync remembers which records did last time: see lib/sync/record-memo.ts): it is not
 * built unless that line is not there to pair with.
 *
 * The caller also knows the base was written by our own writer (`writeSnapshot`: a record memo
 * is only ever kept beside such a base), so that when the line sits in a partition file named
 * as ours, that is the partition its timestamps decide: the record goes to the same one without
 * its timestamps being read.
 */
export class KnownRecord {
  /**
   * `verify`: build it anyway and check that it does pair with that line (else
   * {@link KnownRecordMismatch} is thrown: whatever said it was known is wrong).
   */
  constructor(readonly id: string, private readonly source: { build(): MemoryRecord }, readonly verify = false) {}

  build(): MemoryRecord {
    return this.source.build();
  }
}

/** A known record checked (`verify`) did not pair with the base line it was said to. */
export class KnownRecordMismatch extends Error {
  constructor(readonly id: string) {
    super(`record ${id} was said to be unchanged, but it does not serialize to its base line`);
    this.name = 'KnownRecordMismatch';
  }
}

export interface BaseReconcileResult {
  /**
   * The reconciled records, in extraction order (what `reconcile` returns); a known record's
   * output is line-only (`lineOnlyRecord`): its line says the rest.
   */
  records: MemoryRecord[];
  /**
   * The UTF-8 of `recordJson` of each output record paired early (its base line's bytes), else
   * undefined. Empty when asked for without (`withLines: false`): `paired` says the same.
   */
  lines: (LineBytes | undefined)[];
  /** The base line each output record paired early with (its line is that line), else -1. */
  paired: Int32Array;
  /** `computeDelta(base records, records)`. */
  entries: DeltaEntry[];
  stats: ReconcileStats;
}

/**
 * `reconcile` of a fresh export against a base read as lines, then `computeDelta`, with the same
 * result as parsing the whole base and running both — without parsing the records that did not
 * change.
 *
 * An extracted record whose JSONL line is exactly its base record's line (same id) is paired with
 * it before the passes, when it is the first extracted record with that id. So is one whose line
 * becomes the base line once the base's timestamps are carried over (`carry_identity`, with the
 * base's `temporal` read from its line): a section unchanged in a file that was edited elsewhere,
 * whose file timestamps moved. Those are the pairs P0 makes: base ids are unique, so the base
 * record is the only one with its (id, trimmed content) key, and P0 hands it to the first extracted
 * record with that key — this one, as no earlier record has its id. The pair's output is what
 * carry_identity makes (its line is the base line, so compute_delta finds no operation).
 *
 * The passes then run over what is left, in the original relative orders. They make the same
 * pairs as over everything: a pair made early removes one base record and the first extracted
 * record of its P0 key, which no later pass could have paired differently. P4 re-mints against
 * every base id (the early pairs' ids are passed as reserved). No output of the remainder can
 * carry an early pair's id (the base ids are distinct, and P4 treats those ids as taken), so
 * compute_delta over the remainder gives every operation, in compute_delta's order.
 */
export function reconcileWithBase(args: {
  agentId: string;
  base: BaseLines;
  curr: readonly (MemoryRecord | KnownRecord)[];
  withLines?: boolean;
  /**
   * Ids of base records paired outside this call (their lines are not in `base`, their records
   * not in `curr`: a caller that left out records it knows pair early): no create may keep one.
   */
  reserved?: (id: string) => boolean;
}): BaseReconcileResult {
  const { agentId, base, curr } = args;
  const withLines = args.withLines !== false;
  // Lines by their id hint. A repeated hint is left to parsing (it is a duplicate id, or a line
  // only parsing reads right); so is a line without one.
  const ids = base.idIndex();
  // Whether some line's id is not simply its hint, distinct from every other: then the ids are
  // checked for duplicates one by one at the end.
  let irregular = ids.irregular;
  // Per base line: an extracted record with its id was seen (only the first may pair), it paired.
  const idSeen = new Uint8Array(base.length);
  const baseUsed = new Uint8Array(base.length);
  const out: (MemoryRecord | undefined)[] = new Array(curr.length);
  const lines: (LineBytes | undefined)[] = withLines ? new Array(curr.length) : [];
  const paired = new Int32Array(curr.length).fill(-1);
  const carried = new CarriedPairs();
  const records: MemoryRecord[] = new Array(curr.length);
  // Where known records go: the partition of their line, when named as ours (one object per file).
  let placedFile: string | null = null;
  let placed: { partition: string } | null = null;
  for (let j = 0; j < curr.length; j++) {
    const entry = curr[j]!;
    const i = ids.lineOf(entry.id);
    // The first extracted record with the id of line i (a pair needs its id: baseUsed implies idSeen).
    const pairable = i >= 0 && !idSeen[i];
    if (pairable) idSeen[i] = 1;
    if (entry instanceof KnownRecord && pairable) {
      const file = base.partitionFile(i);
      if (file !== placedFile) {
        placedFile = file;
        placed = isOwnPartitionFile(file) ? { partition: file } : null;
      }
      if (entry.verify) {
        const output = carried.pair(entry.build(), base, i);
        if (output === null || (placed && partitionFileOf(output) !== file)) throw new KnownRecordMismatch(entry.id);
      }
      baseUsed[i] = 1;
      out[j] = records[j] = lineOnlyRecord(entry.id, placed ?? base.timestamps(i));
      paired[j] = i;
      if (withLines) lines[j] = base.bytesOf(i);
      continue;
    }
    const record = (records[j] = entry instanceof KnownRecord ? entry.build() : entry);
    if (!pairable) continue;
    const output = carried.pair(record, base, i);
    if (output === null) continue;
    baseUsed[i] = 1;
    out[j] = output;
    paired[j] = i;
    if (withLines) lines[j] = base.bytesOf(i);
  }

  const restBase: MemoryRecord[] = [];
  // Every line's id is known once the rest are parsed: paired lines are our own serialization of it.
  const parsedId: (string | undefined)[] = new Array(base.length);
  for (let i = 0; i < base.length; i++) {
    if (baseUsed[i]) continue;
    const record = base.record(i);
    restBase.push(record);
    parsedId[i] = record.id;
    if (!ids.hintIs(i, record.id)) irregular = true;
  }
  // Otherwise every id is its line's hint (a paired line's is the id it was found by), all distinct.
  if (irregular) base.assertUniqueIds((i) => parsedId[i] ?? base.idHint(i)!);

  const restCurrIndex: number[] = [];
  const restCurr: MemoryRecord[] = [];
  for (let j = 0; j < curr.length; j++) {
    if (out[j] !== undefined) continue;
    restCurrIndex.push(j);
    restCurr.push(records[j]!);
  }
  // The early pairs' ids: exactly the ids of the lines they used.
  const reservedOutside = args.reserved ?? (() => false);
  const reserved = (id: string) => {
    const i = ids.lineOf(id);
    return (i >= 0 && baseUsed[i] === 1) || reservedOutside(id);
  };
  const rest = reconcile({ agentId, prev: restBase, curr: restCurr, reserved });
  restCurrIndex.forEach((j, k) => { out[j] = rest.records[k]; });
  let early = 0;
  for (const i of paired) if (i >= 0) early++;
  const stats = { ...rest.stats, carried: rest.stats.carried + early };
  return { records: out as MemoryRecord[], lines, paired, entries: computeDelta(restBase, rest.records), stats };
}

const TEMPORAL_KEY = ',"temporal":';

/**
 * The output of the P0 pair of `record` with the base record on line `i`, when the output's
 * line is exactly that line (so compute_delta has nothing to say about it), else null.
 *
 * Sections of one edited file share their new timestamps, and their base lines share the old
 * ones: once one section's base timestamps are known, the next section with the same timestamps
 * is tried with them first — one serialization instead of two, and no search in the line.
 */
class CarriedPairs {
  private lastOwn: string | null = null;
  private lastBase: RecordTemporal | null = null;

  pair(record: MemoryRecord, base: BaseLines, i: number): MemoryRecord | null {
    const own = JSON.stringify(record.temporal);
    if (own === this.lastOwn) {
      const candidate = carryIdentity({ ...record, temporal: this.lastBase! }, record);
      if (base.equals(i, recordJson(candidate))) return candidate;
    }
    const line = recordJson(record);
    if (base.equals(i, line)) return record;
    const output = carriedToBase(record, line, base.text(i));
    if (output !== null) {
      this.lastOwn = own;
      this.lastBase = output.temporal;
      return output;
    }
    return carriedWhole(record, base, i);
  }
}

/**
 * carry_identity(base, record) when its line is exactly line `i`, for a pair whose lines differ
 * beyond the timestamps: P0 carries the base's content and `raw_source_format` too, so a section
 * that only moved within its file (its line numbers) or whose trailing blank lines changed (its
 * content, trimmed the same) pairs with its base line unchanged — and, paired early, becomes a
 * row the next sync knows (the record memo) instead of one built, reconciled and tried every time
 * its file changes. The base line is parsed here only when the record has its id; a line left
 * unpaired is parsed by the remainder's pass anyway (`base.record` keeps what it parsed).
 */
function carriedWhole(record: MemoryRecord, base: BaseLines, i: number): MemoryRecord | null {
  const prev = base.record(i);
  if (prev.id !== record.id || rustTrimEnd(prev.content) !== rustTrimEnd(record.content)) return null;
  const output = carryIdentity(prev, record);
  return base.equals(i, recordJson(output)) ? output : null;
}

/**
 * carry_identity(base, record) when its line is exactly `baseLine`, else null. `line` is the
 * record's own line; the two may differ only in `temporal` (the file's timestamps moved), so the
 * base's temporal is the text between the shared prefix and suffix. The record's temporal text
 * is found where it occurs exactly once, which is where its own serialization put it.
 */
function carriedToBase(record: MemoryRecord, line: string, baseLine: string): MemoryRecord | null {
  const own = TEMPORAL_KEY + JSON.stringify(record.temporal);
  const at = line.indexOf(own);
  if (at < 0 || line.indexOf(own, at + 1) >= 0) return null;
  const suffix = line.length - at - own.length;
  const baseEnd = baseLine.length - suffix;
  if (baseEnd < at + TEMPORAL_KEY.length) return null;
  if (!baseLine.startsWith(line.slice(0, at)) || !baseLine.endsWith(line.slice(line.length - suffix))) return null;
  const baseTemporalText = baseLine.slice(at, baseEnd);
  if (!baseTemporalText.startsWith(TEMPORAL_KEY)) return null;
  let temporal: unknown;
  try {
    temporal = JSON.parse(baseTemporalText.slice(TEMPORAL_KEY.length));
  } catch {
    return null;
  }
  if (!isJsonObject(temporal) || typeof temporal.created_at !== 'string') return null;
  const output = carryIdentity({ ...record, temporal: temporal as RecordTemporal }, record);
  // The output serializes to `line` with its temporal in place of the record's: the base line?
  return TEMPORAL_KEY + JSON.stringify(output.temporal) === baseTemporalText ? output : null;
}
