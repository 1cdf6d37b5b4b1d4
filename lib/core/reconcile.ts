import { remintId } from './ids';
import { isJsonObject, jsonEqual } from './json';
import { recordScope, type MemoryRecord, type RecordTemporal } from './record';
import { rustTrim, rustTrimEnd, rustLines } from './rust-str';

export interface ReconcileStats {
  carried: number;
  heading_matched: number;
  id_matched: number;
  created: number;
  deleted: number;
  reminted: number;
}

interface Queue {
  items: number[];
  head: number;
}

export interface ReconcileResult {
  /** One output per fresh record, in extraction order, carrying the identity reconcile decided. */
  records: MemoryRecord[];
  /** True when any output differs from the record the adapter extracted. */
  rewritten: boolean;
  stats: ReconcileStats;
}

/**
 * Pairs a fresh export (`curr`) with the last-synced base (`prev`) in the five deterministic,
 * threshold-free passes of CONTRACT §5. Each pass consumes what it matches; several candidates
 * for one key pair first-in-first-out. Unmatched base records are implicit deletes.
 */
export function reconcile(args: {
  agentId: string;
  prev: readonly MemoryRecord[];
  curr: readonly MemoryRecord[];
  /**
   * Whether an id is one of the base records paired outside this call (reconcileWithBase's
   * exact-line pairs): no create may keep one, exactly as if those records were in `prev`.
   */
  reserved?: (id: string) => boolean;
}): ReconcileResult {
  const { agentId, prev, curr } = args;
  const out: (MemoryRecord | undefined)[] = new Array(curr.length);
  const prevUsed = new Array<boolean>(prev.length).fill(false);
  const stats: ReconcileStats = { carried: 0, heading_matched: 0, id_matched: 0, created: 0, deleted: 0, reminted: 0 };

  // Keys are (part, part) pairs held in nested maps, so no two different pairs can collide and no
  // key string is built per record (a concatenated content key is a long string to build, flatten
  // and hash, twice per record per pass). Trimmed contents and scopes are computed once per record.
  type Key = readonly [string, string] | string | null;
  const pass = (keyOf: (r: MemoryRecord, side: 0 | 1, index: number) => Key, build: (p: MemoryRecord, c: MemoryRecord) => MemoryRecord, counter: keyof ReconcileStats): void => {
    const queues = new Map<string, Queue | Map<string, Queue>>();
    const queueOf = (key: Exclude<Key, null>, create: boolean): Queue | undefined => {
      if (typeof key === 'string') {
        let queue = queues.get(key) as Queue | undefined;
        if (!queue && create) queues.set(key, (queue = { items: [], head: 0 }));
        return queue;
      }
      let inner = queues.get(key[0]) as Map<string, Queue> | undefined;
      if (!inner) {
        if (!create) return undefined;
        queues.set(key[0], (inner = new Map()));
      }
      let queue = inner.get(key[1]);
      if (!queue && create) inner.set(key[1], (queue = { items: [], head: 0 }));
      return queue;
    };
    for (let i = 0; i < prev.length; i++) {
      if (prevUsed[i]) continue;
      const key = keyOf(prev[i]!, 0, i);
      if (key !== null) queueOf(key, true)!.items.push(i);
    }
    for (let j = 0; j < curr.length; j++) {
      if (out[j]) continue;
      const key = keyOf(curr[j]!, 1, j);
      if (key === null) continue;
      const queue = queueOf(key, false);
      // First in, first out: several candidates for one key pair in order.
      if (!queue || queue.head >= queue.items.length) continue;
      const i = queue.items[queue.head++]!;
      prevUsed[i] = true;
      out[j] = build(prev[i]!, curr[j]!);
      stats[counter]++;
    }
  };

  const trimmedOf: [(string | undefined)[], (string | undefined)[]] = [new Array(prev.length), new Array(curr.length)];
  const scopeOf: [(string | undefined)[], (string | undefined)[]] = [new Array(prev.length), new Array(curr.length)];
  const trimmed = (r: MemoryRecord, side: 0 | 1, index: number): string => (trimmedOf[side][index] ??= rustTrimEnd(r.content));
  const scope = (r: MemoryRecord, side: 0 | 1, index: number): string => (scopeOf[side][index] ??= recordScope(r));
  pass((r, side, i) => [r.id, trimmed(r, side, i)], carryIdentity, 'carried');
  pass((r, side, i) => [scope(r, side, i), trimmed(r, side, i)], carryIdentity, 'carried');
  pass((r, side, i) => {
    const heading = headingKey(r);
    return heading === null ? null : [scope(r, side, i), heading];
  }, carryBirth, 'heading_matched');
  pass((r) => r.id, carryBirth, 'id_matched');

  const taken = new Set<string>(prev.map((p) => p.id));
  for (const r of out) if (r) taken.add(r.id);
  const reserved = args.reserved ?? (() => false);
  const isTaken = (id: string) => taken.has(id) || reserved(id);
  curr.forEach((c, j) => {
    if (out[j]) return;
    stats.created++;
    if (!isTaken(c.id)) {
      out[j] = c;
    } else {
      const id = remintId({ agentId, scope: recordScope(c), content: c.content, taken: isTaken });
      out[j] = { ...c, id };
      stats.reminted++;
    }
    taken.add(out[j]!.id);
  });
  stats.deleted = prevUsed.filter((used) => !used).length;

  const records = out as MemoryRecord[];
  const rewritten = records.some((r, j) => differsFromExtracted(r, curr[j]!));
  return { records, rewritten, stats };
}

/** The passes only ever replace id, content, temporal and raw_source_format: compare just those. */
function differsFromExtracted(out: MemoryRecord, extracted: MemoryRecord): boolean {
  if (out === extracted) return false;
  return (
    out.id !== extracted.id ||
    out.content !== extracted.content ||
    !jsonEqual(out.temporal, extracted.temporal) ||
    !jsonEqual(out.raw_source_format, extracted.raw_source_format)
  );
}

/** curr with prev's id, content, created_at, observed_at, updated_at and raw_source_format. */
export function carryIdentity(prev: MemoryRecord, curr: MemoryRecord): MemoryRecord {
  const temporal: RecordTemporal = { ...curr.temporal, created_at: prev.temporal.created_at };
  setOrDelete(temporal, 'observed_at', prev.temporal.observed_at);
  setOrDelete(temporal, 'updated_at', prev.temporal.updated_at);
  const out: MemoryRecord = { ...curr, id: prev.id, content: prev.content, temporal };
  setOrDelete(out, 'raw_source_format', prev.raw_source_format);
  return out;
}

/** curr with prev's id, created_at and observed_at (a body edit under a stable identity). */
export function carryBirth(prev: MemoryRecord, curr: MemoryRecord): MemoryRecord {
  const temporal: RecordTemporal = { ...curr.temporal, created_at: prev.temporal.created_at };
  setOrDelete(temporal, 'observed_at', prev.temporal.observed_at);
  return { ...curr, id: prev.id, temporal };
}

function setOrDelete<T extends object>(target: T, key: keyof T & string, value: unknown): void {
  if (value === undefined) delete (target as Record<string, unknown>)[key];
  else (target as Record<string, unknown>)[key] = value;
}

/**
 * Heading key: only for records whose raw_source_format has a `heading` slot; the trimmed
 * heading when non-empty, else the first content line when it is a `#` title, else none.
 */
export function headingKey(record: MemoryRecord): string | null {
  const format = record.raw_source_format;
  if (!isJsonObject(format) || !('heading' in format)) return null;
  const heading = format.heading;
  if (typeof heading === 'string' && rustTrim(heading).length > 0) return rustTrim(heading);
  const first = rustLines(record.content)[0];
  if (first === undefined) return null;
  const line = rustTrim(first);
  return line.startsWith('#') ? line : null;
}
