/**
 * The memories' side of a comparison (pure): records linked by the moves between the two ends are
 * one memory, classified by its state at each end. A memory live at `from` and at `to` under
 * other record ids (moved, maybe edited after) is one move; born and gone in between, nothing.
 */

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

const after = (e: MoveEdge, seq: number, kind: string) => e.seq > seq || (e.seq === seq && e.entry_kind > kind);

/** Sort key: the file, heading and id a reader finds the entry by. */
type Keyed<T> = { file: string; heading: string; id: string; value: T };
const byPlace = <T>(a: Keyed<T>, b: Keyed<T>) =>
  a.file < b.file ? -1 : a.file > b.file ? 1 : a.heading < b.heading ? -1 : a.heading > b.heading ? 1 : a.id < b.id ? -1 : a.id > b.id ? 1 : 0;

export function linkMemories(states: MemoryStateRow[], edges: MoveEdge[]): LinkedMemories {
  const byId = new Map(states.map((s) => [s.record_id, s]));
  const outgoing = new Map<string, MoveEdge[]>();
  for (const e of edges) outgoing.set(e.source, [...(outgoing.get(e.source) ?? []), e]);
  const visited = new Set<string>();
  const created: Keyed<number>[] = [];
  const updated: Keyed<[number, number]>[] = [];
  const deleted: Keyed<number>[] = [];
  const moved: Keyed<LinkedMemories['moved'][number]>[] = [];

  // From each memory live at `from`, along its moves (each the first one after the last), to where it is at `to`.
  for (const start of states) {
    if (start.from_id === null) continue;
    visited.add(start.record_id);
    let end = start;
    let at = { seq: -1, kind: '' };
    for (;;) {
      const next = (outgoing.get(end.record_id) ?? []).find((e) => after(e, at.seq, at.kind));
      const target = next && byId.get(next.target);
      if (!next || !target || visited.has(target.record_id)) break;
      visited.add(target.record_id);
      end = target;
      at = { seq: next.seq, kind: next.entry_kind };
    }
    const before = { file: start.from_file ?? '', heading: start.from_heading ?? '', id: start.record_id };
    if (end.to_id === null) {
      deleted.push({ ...before, value: start.from_id });
      continue;
    }
    const place = { file: end.to_file ?? '', heading: end.to_heading ?? '', id: end.record_id };
    const samePlace = start.from_file === end.to_file && start.from_heading === end.to_heading;
    const changed = start.from_sha !== end.to_sha || start.from_meta !== end.to_meta;
    if (end !== start && !samePlace) {
      moved.push({ ...place, value: { before: start.from_id, after: end.to_id, contentChanged: start.from_sha !== end.to_sha } });
    } else if (changed && start.from_id !== end.to_id) {
      updated.push({ ...place, value: [start.from_id, end.to_id] });
    }
  }
  // Live at `to` and reached from no memory live at `from`: born in between (maybe moved after).
  for (const s of states) {
    if (visited.has(s.record_id) || s.to_id === null) continue;
    created.push({ file: s.to_file ?? '', heading: s.to_heading ?? '', id: s.record_id, value: s.to_id });
  }
  const values = <T>(list: Keyed<T>[]) => list.sort(byPlace).map((k) => k.value);
  return { created: values(created), updated: values(updated), deleted: values(deleted), moved: values(moved) };
}
