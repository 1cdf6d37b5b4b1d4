/**
 * What became of a fact in one agent: the records that held it, from each version that matched to
 * the next version of that record that did not (edited away, moved away, deleted), folded into
 * `present`, `last_seen_sequence`, `gone_at_sequence` and `deleted`. A record "holds" the fact at a
 * sequence when its last version at that sequence matches.
 */
export interface FactStatus {
  /** A live record at the agent's latest sequence contains it. */
  present: boolean;
  /** The last sequence at which a live record contained it: the latest when present, else the one before `gone_at_sequence`. */
  last_seen_sequence: number | null;
  /** The first sequence after its last appearance at which no live record contains it. */
  gone_at_sequence: number | null;
  /** The records that held it last were deleted (not edited, not moved). */
  deleted: boolean;
}

export const NEVER_SEEN: FactStatus = { present: false, last_seen_sequence: null, gone_at_sequence: null, deleted: false };

/** One record's versions, one per sequence (the last at that sequence), in sequence order. */
export interface RecordTimeline {
  record_id: string;
  versions: { seq: number; op: string; matches: boolean }[];
}

/** How a record stopped holding the fact: at which sequence, by which version (its op is read only for the last endings: a caller may look it up lazily). */
interface Ending { record_id: string; seq: number; version: { op: string } }

export function factStatus(args: {
  latestSequence: number;
  timelines: readonly RecordTimeline[];
  /** Whether the record deleted at `seq` is the source of a move at that sequence. */
  isMoveSource: (recordId: string, seq: number) => boolean;
}): FactStatus {
  const endings: Ending[] = [];
  let open = false;
  for (const { record_id, versions } of args.timelines) {
    let holding = false;
    for (const v of versions) {
      if (v.matches) holding = true;
      else if (holding) {
        endings.push({ record_id, seq: v.seq, version: v });
        holding = false;
      }
    }
    if (holding) open = true;
  }
  if (open) return { present: true, last_seen_sequence: args.latestSequence, gone_at_sequence: null, deleted: false };
  if (endings.length === 0) return NEVER_SEEN;
  const gone = Math.max(...endings.map((e) => e.seq));
  const last = endings.filter((e) => e.seq === gone);
  return {
    present: false,
    last_seen_sequence: gone - 1,
    gone_at_sequence: gone,
    deleted: last.every((e) => e.version.op === 'delete' && !args.isMoveSource(e.record_id, e.seq)),
  };
}
