/**
 * The fold's `IndexTarget` on PostgreSQL. `foldEntry` (lib/history/indexer.ts) is synchronous and
 * reads the current state as it goes, so that state is read first, in the append's transaction
 * (the agent's row is locked, nothing moves under it): for a delta only the records and paths the
 * entry names; anything else the fold asks for (live records for a snapshot, rendered record
 * files) makes the first pass give up (`NeedsWholeState`) and the fold runs again over the whole
 * state. Writes are kept, applied to the state in memory (the fold reads its own writes, as the
 * SQLite target does through its transaction), and written by `flush` in fold order — the order
 * the embedded indexer inserts them.
 */
import { compareBinary } from '@/lib/history/compare-binary';
import { currentFields, type CurrentRecord, type RecordFields } from '@/lib/history/index-rows';
import type { IndexTarget, RawVersionRow, VersionMeta } from '@/lib/history/indexer';
import type { PreparedEntry } from '@/lib/history/ledger-blob';
import { applyFacetDelta, type FacetCount } from '@/lib/history/live-facets';
import { insertRows, type Queryable } from './sql';

class NeedsWholeState extends Error {}

/** `records` joined with its latest version's canonical JSON (LATEST_VERSION_JOIN of statements.ts). */
const CURRENT_RECORDS = `SELECT r.agent_id, r.record_id, r.first_seq, r.last_seq, r.deleted_seq, r.born_at, r.last_changed_at,
    (SELECT w.record_json FROM record_versions w WHERE w.agent_id = r.agent_id AND w.record_id = r.record_id
     ORDER BY w.seq DESC, w.entry_kind DESC LIMIT 1) AS record_json
  FROM records r WHERE r.agent_id = $1`;
const RAW_HEADS = `SELECT DISTINCT ON (path) path, sha256, deleted FROM raw_file_versions WHERE agent_id = $1`;
const RAW_HEADS_ORDER = 'ORDER BY path, seq DESC, entry_kind DESC';

/**
 * The state an entry's fold reads, in one round trip: the records and the paths' heads as two
 * JSON arrays. `partial`: only the record ids ($2) and paths ($3) the entry names.
 */
function stateQuery(partial: boolean): { name: string; text: string } {
  const records = partial ? `${CURRENT_RECORDS} AND r.record_id = ANY($2::text[])` : CURRENT_RECORDS;
  const heads = partial ? `${RAW_HEADS} AND path = ANY($3::text[]) ${RAW_HEADS_ORDER}` : `${RAW_HEADS} ${RAW_HEADS_ORDER}`;
  return {
    name: partial ? 'lineage_fold_state_partial' : 'lineage_fold_state_whole',
    text: `SELECT (SELECT coalesce(json_agg(x), '[]') FROM (${records}) x) AS records,
      (SELECT coalesce(json_agg(h), '[]') FROM (${heads}) h) AS heads`,
  };
}

export const VERSION_COLUMNS = ['agent_id', 'record_id', 'seq', 'entry_kind', 'op', 'content', 'content_sha256', 'memory_type', 'namespace',
  'status', 'origin_file', 'heading', 'tags', 'record_json', 'created_at', 'updated_at', 'observed_at', 'synced_at', 'moved_from'] as const;
export const RECORD_COLUMNS = ['agent_id', 'record_id', 'first_seq', 'last_seq', 'deleted_seq', 'born_at', 'last_changed_at'] as const;
export const RAW_COLUMNS = ['agent_id', 'path', 'seq', 'entry_kind', 'sha256', 'size', 'deleted', 'reconstructed'] as const;

const TYPES: Record<string, string> = {
  seq: 'int4', first_seq: 'int4', last_seq: 'int4', deleted_seq: 'int4', deleted: 'int4', reconstructed: 'int4', size: 'int8', data: 'bytea',
};
const OBJECT_COLUMNS = ['sha256', 'size', 'data'] as const;

/** `INSERT INTO table (columns) SELECT … FROM unnest($a::type[], …)` over one array per column, rows kept in array order. */
function insertFromArrays(table: string, columns: readonly string[], first: number, suffix = ''): string {
  const arrays = columns.map((c, i) => `$${first + i}::${TYPES[c] ?? 'text'}[]`).join(', ');
  return `INSERT INTO ${table} (${columns.join(', ')}) SELECT ${columns.join(', ')}
    FROM unnest(${arrays}) WITH ORDINALITY AS t(${columns.join(', ')}, n) ORDER BY n ${suffix}`;
}

/** Every write of a fold in one statement: the four tables' rows as arrays, one per column. */
const FLUSH = (() => {
  let at = 1;
  const next = (columns: readonly string[]) => { const first = at; at += columns.length; return first; };
  const versions = insertFromArrays('record_versions', VERSION_COLUMNS, next(VERSION_COLUMNS));
  const records = insertFromArrays('records', RECORD_COLUMNS, next(RECORD_COLUMNS),
    `ON CONFLICT (agent_id, record_id) DO UPDATE SET ${RECORD_COLUMNS.slice(2).map((c) => `${c} = excluded.${c}`).join(', ')}`);
  const objects = insertFromArrays('raw_objects', OBJECT_COLUMNS, next(OBJECT_COLUMNS), 'ON CONFLICT DO NOTHING');
  const raw = insertFromArrays('raw_file_versions', RAW_COLUMNS, next(RAW_COLUMNS));
  return { name: 'lineage_fold_flush', text: `WITH v AS (${versions}), r AS (${records}), o AS (${objects}) ${raw}` };
})();

/** Rows as one array per column. */
function columnsOf(rows: readonly unknown[][], width: number): unknown[][] {
  return Array.from({ length: width }, (_, c) => rows.map((row) => row[c]));
}

export class PgFoldTarget implements IndexTarget {
  private readonly records = new Map<string, CurrentRecord>();
  private readonly heads = new Map<string, string | null>();
  private readonly fields = new Map<string, RecordFields>();
  private readonly versions: unknown[][] = [];
  private readonly touched = new Set<string>();
  private readonly objects = new Map<string, Uint8Array>();
  private readonly raw: unknown[][] = [];
  /** Changes of the live-facet counters since the last flush (summed by key; zeros dropped). */
  private readonly facets = new Map<string, FacetCount>();
  /** Changes of each sequence's facet changes (`record_facet_changes`) since the last flush. */
  private readonly facetChanges = new Map<number, Map<string, FacetCount>>();

  /** `whole`: the state holds every record and path of the agent (else only those the entry names). */
  private constructor(readonly agentId: string, private readonly whole: boolean) {}

  /** An empty agent (the rebuild starts each agent from nothing). */
  static empty(agentId: string): PgFoldTarget {
    return new PgFoldTarget(agentId, true);
  }

  /** The state `entry` needs, read in `db`; `whole` reads all of it. */
  static async load(db: Queryable, agentId: string, entry: PreparedEntry, whole: boolean): Promise<PgFoldTarget> {
    const target = new PgFoldTarget(agentId, whole);
    const ids = entry.kind === 'delta' && !whole ? entry.lines.map((l) => l.fields.record_id) : null;
    const paths = entry.kind === 'delta' && !whole ? [...entry.rawChanged.map((f) => f.path), ...entry.rawDeleted] : null;
    const partial = ids !== null && paths !== null;
    const { rows } = await db.query({ ...stateQuery(partial), values: partial ? [agentId, ids, paths] : [agentId] });
    const state = rows[0] as { records: CurrentRecord[]; heads: { path: string; sha256: string | null; deleted: number }[] };
    for (const r of state.records) target.records.set(r.record_id, r);
    for (const h of state.heads) target.heads.set(h.path, h.deleted ? null : h.sha256);
    if (ids) for (const id of ids) target.known.add(id);
    if (paths) for (const path of paths) target.knownPaths.add(path);
    return target;
  }

  /** Ids and paths looked up (present or not) when the state is partial. */
  private readonly known = new Set<string>();
  private readonly knownPaths = new Set<string>();

  /** Runs `fold` over the partial state, and again over the whole state if it needed more. */
  static async fold<T>(db: Queryable, agentId: string, entry: PreparedEntry, fold: (target: PgFoldTarget) => T): Promise<{ target: PgFoldTarget; result: T }> {
    if (entry.kind === 'delta') {
      const partial = await PgFoldTarget.load(db, agentId, entry, false);
      try {
        return { target: partial, result: fold(partial) };
      } catch (error) {
        if (!(error instanceof NeedsWholeState)) throw error;
      }
    }
    const target = await PgFoldTarget.load(db, agentId, entry, true);
    return { target, result: fold(target) };
  }

  private requireWhole(): void {
    if (!this.whole) throw new NeedsWholeState();
  }

  recordRows(ids: readonly string[]): Map<string, CurrentRecord> {
    const out = new Map<string, CurrentRecord>();
    for (const id of ids) {
      if (!this.whole && !this.known.has(id) && !this.touched.has(id)) this.requireWhole();
      const row = this.records.get(id);
      if (row) out.set(id, row);
    }
    return out;
  }

  liveRecords(): CurrentRecord[] {
    this.requireWhole();
    return [...this.records.values()].filter((r) => r.deleted_seq === null)
      .sort((a, b) => a.first_seq - b.first_seq || compareBinary(a.record_id, b.record_id));
  }

  rawHeads(paths: readonly string[]): Map<string, string | null> {
    const out = new Map<string, string | null>();
    for (const path of paths) {
      if (!this.whole && !this.knownPaths.has(path)) this.requireWhole();
      const head = this.heads.get(path);
      if (head !== undefined) out.set(path, head);
    }
    return out;
  }

  liveRaw(): Map<string, string> {
    this.requireWhole();
    return new Map([...this.heads].filter((e): e is [string, string] => e[1] !== null).sort((a, b) => compareBinary(a[0], b[0])));
  }

  tombstoneFields(row: CurrentRecord): RecordFields {
    const known = this.fields.get(row.record_id);
    return known && known.record_json === row.record_json ? known : currentFields(row);
  }

  insertVersion(f: RecordFields, m: VersionMeta): void {
    this.versions.push([m.agent_id, f.record_id, m.seq, m.entry_kind, m.op, f.content, f.content_sha256, f.memory_type, f.namespace,
      f.status, f.origin_file, f.heading, f.tags, f.record_json, f.created_at, f.updated_at, f.observed_at, m.synced_at, m.moved_from]);
  }

  putRecord(row: CurrentRecord, fields: RecordFields): void {
    this.records.set(row.record_id, row);
    this.fields.set(row.record_id, fields);
    this.touched.add(row.record_id);
  }

  putObject(sha256: string, bytes: Uint8Array | null): void {
    if (!bytes) throw new Error(`raw object ${sha256} came without its bytes`);
    if (!this.objects.has(sha256)) this.objects.set(sha256, bytes);
  }

  insertRawVersion(row: RawVersionRow): void {
    this.raw.push([row.agent_id, row.path, row.seq, row.entry_kind, row.sha256, row.size, row.deleted, row.reconstructed ?? null]);
    this.heads.set(row.path, row.deleted ? null : row.sha256);
    this.knownPaths.add(row.path);
  }

  addFacetCounts(delta: readonly FacetCount[], seq: number): void {
    applyFacetDelta(this.facets, delta);
    let changes = this.facetChanges.get(seq);
    if (!changes) this.facetChanges.set(seq, (changes = new Map()));
    applyFacetDelta(changes, delta);
  }

  /**
   * Writes what the fold wrote since the last flush, in fold order: one statement (one round trip,
   * one plan per connection) for the four tables, in slices of FLUSH_ROWS rows per table; then the
   * live-facet counters' changes, if any (and the counters that fell to zero dropped).
   */
  async flush(db: Queryable): Promise<void> {
    const versions = this.versions.splice(0);
    const touched = [...this.touched].sort(compareBinary);
    this.touched.clear();
    const records = touched.map((id) => {
      const r = this.records.get(id)!;
      return [r.agent_id, r.record_id, r.first_seq, r.last_seq, r.deleted_seq, r.born_at, r.last_changed_at];
    });
    const objects = [...this.objects].map(([sha, bytes]) => [sha, bytes.byteLength, Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)]);
    this.objects.clear();
    const raw = this.raw.splice(0);
    const slices = Math.max(...[versions, records, objects, raw].map((rows) => Math.ceil(rows.length / FLUSH_ROWS)));
    for (let i = 0; i < slices; i++) {
      const slice = (rows: unknown[][]) => rows.slice(i * FLUSH_ROWS, (i + 1) * FLUSH_ROWS);
      await db.query({ ...FLUSH, values: [
        ...columnsOf(slice(versions), VERSION_COLUMNS.length), ...columnsOf(slice(records), RECORD_COLUMNS.length),
        ...columnsOf(slice(objects), OBJECT_COLUMNS.length), ...columnsOf(slice(raw), RAW_COLUMNS.length),
      ] });
    }
    const facets = [...this.facets.values()].map((c) => [this.agentId, c.facet, c.value, c.count]);
    this.facets.clear();
    if (facets.length > 0) {
      await insertRows(db, 'record_facets', ['agent_id', 'facet', 'value', 'count'], facets,
        'ON CONFLICT (agent_id, facet, value) DO UPDATE SET count = record_facets.count + excluded.count');
      if (facets.some((f) => (f[3] as number) < 0)) await db.query('DELETE FROM record_facets WHERE agent_id = $1 AND count = 0', [this.agentId]);
    }
    const changes = [...this.facetChanges].flatMap(([seq, byKey]) => [...byKey.values()].map((c) => [this.agentId, seq, c.facet, c.value, c.count]));
    const seqs = [...this.facetChanges.keys()];
    this.facetChanges.clear();
    if (changes.length > 0) {
      await insertRows(db, 'record_facet_changes', ['agent_id', 'seq', 'facet', 'value', 'change'], changes,
        'ON CONFLICT (agent_id, seq, facet, value) DO UPDATE SET change = record_facet_changes.change + excluded.change');
      // An earlier flush of the same sequence may have changed one the other way (a rollover snapshot's entry).
      await db.query('DELETE FROM record_facet_changes WHERE agent_id = $1 AND seq = ANY($2::int[]) AND change = 0', [this.agentId, seqs]);
    }
  }
}

/** Rows per table in one flush statement (a 200,000-record snapshot is written in slices). */
const FLUSH_ROWS = 5000;
