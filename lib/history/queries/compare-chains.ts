/**
 * The memories' side of a comparison (pure): records linked by the moves between the two ends are
 * one memory, classified by its state at each end. A memory live at `from` and at `to` under
 * other record ids (moved, maybe edited after) is one move; born and gone in between, nothing.
 */
import { firstInOrder } from './first-in-order';

/** One record touched between the ends: its version ids live at each end (null: not live then). */
export interface MemoryStateRow {
  record_id: string;
  from_id: number | null;
  to_id: number | null;
  from_sha: string | null;
  to_sha: string | null;
  /**
   * Everything but the text (file, heading, type, namespace, status, tags), comparable as text. A
   * backend may leave it null where the two texts differ and no move links the record: it is not read then.
   */
  from_meta: string | null;
  to_meta: string | null;
  from_file: string | null;
  from_heading: string | null;
  to_file: string | null;
  to_heading: string | null;
}

/** A move between the ends: `source` moved to `target` at `seq`. */
export interface MoveEdge {
  source: string;
  target: string;
  seq: number;
  entry_kind: string;
}

/** Version ids: what each entry shows at `from` (before) and at `to` (after). */
export interface LinkedMemories {
  created: number[];
  updated: [number, number][];
  deleted: number[];
  moved: { before: number; after: number; contentChanged: boolean }[];
}

/** The first `limit` memories of each kind (in place order) and how many there are of each in all. */
export interface LinkedPage {
  page: LinkedMemories;
  counts: Record<keyof LinkedMemories, number>;
}

const after = (e: MoveEdge, seq: number, kind: string) => e.seq > seq || (e.seq === seq && e.entry_kind > kind);

/** Sort key: the file, heading and id a reader finds the entry by. */
export type Keyed<T> = { file: string; heading: string; id: string; value: T };
const keyed = <T>(file: string | null, heading: string | null, id: string, value: T): Keyed<T> => ({ file: file ?? '', heading: heading ?? '', id, value });

/** Where the memory live at `from` as `start` is at `to`: along its moves, each the first one after the last. */
function chainEnd(start: MemoryStateRow, p: { byId: Map<string, MemoryStateRow>; outgoing: Map<string, MoveEdge[]>; visited: Set<string> }): MemoryStateRow {
  let end = start;
  let at = { seq: -1, kind: '' };
  for (;;) {
    const next = (p.outgoing.get(end.record_id) ?? []).find((e) => after(e, at.seq, at.kind));
    const target = next && p.byId.get(next.target);
    if (!next || !target || p.visited.has(target.record_id)) return end;
    p.visited.add(target.record_id);
    end = target;
    at = { seq: next.seq, kind: next.entry_kind };
  }
}

/** Each kind's entries so far, keyed by their place (the page is cut from them at the end). */
export interface MemoryKinds {
  created: Keyed<number>[];
  updated: Keyed<[number, number]>[];
  deleted: Keyed<number>[];
  moved: Keyed<LinkedMemories['moved'][number]>[];
  /**
   * Entries counted but not listed: a backend that ranks a kind itself lists only its first `limit`
   * (those after them cannot be on the page) and counts the rest here.
   */
  unlisted: Record<keyof LinkedMemories, number>;
}

export const noKinds = (): MemoryKinds => ({ created: [], updated: [], deleted: [], moved: [], unlisted: { created: 0, updated: 0, deleted: 0, moved: 0 } });

/** A record no move links, as linkMemories classifies it: by its own two versions alone. */
export interface PlainState {
  record_id: string;
  from_id: number | null;
  to_id: number | null;
  /** Whether its text or anything else of it differs between the two ends (read only when both are live). */
  changed: boolean;
  from_file: string | null;
  from_heading: string | null;
  to_file: string | null;
  to_heading: string | null;
}

/**
 * Adds a record no move links to `kinds`: what linkMemories makes of it, without the chains' walk —
 * a backend that reads such records apart (compare-states.ts) classifies them as they come.
 */
export function addPlain(kinds: MemoryKinds, s: PlainState): void {
  if (s.from_id === null) {
    if (s.to_id !== null) kinds.created.push(keyed(s.to_file, s.to_heading, s.record_id, s.to_id));
  } else if (s.to_id === null) {
    kinds.deleted.push(keyed(s.from_file, s.from_heading, s.record_id, s.from_id));
  } else if (s.changed && s.from_id !== s.to_id) {
    kinds.updated.push(keyed(s.to_file, s.to_heading, s.record_id, [s.from_id, s.to_id]));
  }
}

/**
 * The memories of `states` linked along `edges` and classified, added to `kinds` (those a backend
 * classified already: records no move links, addPlain); of each kind the first `limit` in place
 * order (file, heading, id) and the count of all.
 */
export function linkMemories(states: MemoryStateRow[], edges: MoveEdge[], limit = Infinity, kinds: MemoryKinds = noKinds()): LinkedPage {
  const outgoing = new Map<string, MoveEdge[]>();
  for (const e of edges) outgoing.set(e.source, [...(outgoing.get(e.source) ?? []), e]);
  // Only a chain needs the records by id (most comparisons have no move).
  const chains = { byId: new Map(edges.length === 0 ? [] : states.map((s) => [s.record_id, s])), outgoing, visited: new Set<string>() };
  const { visited } = chains;
  const { created, updated, deleted, moved } = kinds;

  for (const start of states) {
    if (start.from_id === null) continue;
    visited.add(start.record_id);
    const end = outgoing.has(start.record_id) ? chainEnd(start, chains) : start;
    if (end.to_id === null) {
      deleted.push(keyed(start.from_file, start.from_heading, start.record_id, start.from_id));
      continue;
    }
    const samePlace = start.from_file === end.to_file && start.from_heading === end.to_heading;
    const changed = start.from_sha !== end.to_sha || start.from_meta !== end.to_meta;
    if (end !== start && !samePlace) {
      moved.push(keyed(end.to_file, end.to_heading, end.record_id, { before: start.from_id, after: end.to_id, contentChanged: start.from_sha !== end.to_sha }));
    } else if (changed && start.from_id !== end.to_id) {
      updated.push(keyed(end.to_file, end.to_heading, end.record_id, [start.from_id, end.to_id]));
    }
  }
  // Live at `to` and reached from no memory live at `from`: born in between (maybe moved after).
  for (const s of states) {
    if (visited.has(s.record_id) || s.to_id === null) continue;
    created.push(keyed(s.to_file, s.to_heading, s.record_id, s.to_id));
  }
  return {
    page: { created: firstInPlaceOrder(created, limit), updated: firstInPlaceOrder(updated, limit), deleted: firstInPlaceOrder(deleted, limit), moved: firstInPlaceOrder(moved, limit) },
    counts: {
      created: created.length + kinds.unlisted.created, updated: updated.length + kinds.unlisted.updated,
      deleted: deleted.length + kinds.unlisted.deleted, moved: moved.length + kinds.unlisted.moved,
    },
  };
}

/**
 * The first `limit` values in (file, heading, id) order — a total order, ids being unique, so the
 * first `limit` are the same however they are found. Each distinct file is ranked once, so most
 * comparisons are of numbers (entries share long paths, and two equal strings are compared whole).
 * A page of 25 out of thousands (the compare page's far comparisons) keeps the best `limit` in a
 * sorted window (first-in-order.ts) instead of sorting every entry.
 */
export function firstInPlaceOrder<T>(list: Keyed<T>[], limit: number): T[] {
  const rank = new Map([...new Set(list.map((k) => k.file))].sort().map((file, i) => [file, i]));
  const text = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
  // Files ranked by a lookup per comparison rather than a ranked copy of every entry (a far
  // comparison has thousands, and each copy was garbage the moment the page was cut).
  const order = (a: Keyed<T>, b: Keyed<T>) => rank.get(a.file)! - rank.get(b.file)! || text(a.heading, b.heading) || text(a.id, b.id);
  if (limit * 4 >= list.length) return [...list].sort(order).slice(0, limit).map((k) => k.value);
  return firstInOrder(list, limit, order).map((k) => k.value);
}
