/**
 * The rebuild's `IndexTarget`: the current state of the agent being replayed is mirrored in memory
 * (its `records` rows and raw heads), so deriving an entry's ops costs map lookups instead of
 * queries, and the index rows are written with plain better-sqlite3 statements prepared once for
 * the whole rebuild. `records` rows and `record_facets` counters are only written when the agent is
 * finished (`finish`): those tables hold current state, so their final contents are the same as
 * after upserting them one entry at a time, as the incremental indexer does.
 */
import type Database from 'better-sqlite3';
import type { RecordRow } from '@/db/schema';
import { currentFields, type CurrentRecord, type RecordFields } from './index-rows';
import type { IndexTarget, RawVersionRow, VersionMeta } from './indexer';
import { indexText } from './search/index-text';
import { INSERT_WORDS } from './search/word-index';
import { hasFullText } from './statements';
import { compareBinary } from './compare-binary';
import { applyFacetDelta, type FacetCount } from './live-facets';

export { compareBinary };

const VERSION_COLUMNS = ['agent_id', 'record_id', 'seq', 'entry_kind', 'op', 'content', 'content_sha256', 'memory_type', 'namespace',
  'status', 'origin_file', 'heading', 'tags', 'record_json', 'created_at', 'updated_at', 'observed_at', 'synced_at', 'moved_from'] as const;
const RECORD_COLUMNS = ['agent_id', 'record_id', 'first_seq', 'last_seq', 'deleted_seq', 'born_at', 'last_changed_at'] as const;
const RAW_COLUMNS = ['agent_id', 'path', 'seq', 'entry_kind', 'sha256', 'size', 'deleted', 'reconstructed'] as const;

const insertSql = (table: string, columns: readonly string[]) =>
  `INSERT INTO ${table} (${columns.join(', ')}) VALUES (${columns.map(() => '?').join(', ')})`;

/** Writes `record_versions` row `id` (the rebuild's ids are 1…n, in replay order) over whatever row had that id. */
const VERSION_UPSERT = `${insertSql('record_versions', ['id', ...VERSION_COLUMNS])}
  ON CONFLICT (id) DO UPDATE SET ${VERSION_COLUMNS.map((c) => `${c} = excluded.${c}`).join(', ')}`;

/**
 * Statements of one rebuild (prepared once) and its raw objects.
 *
 * `raw_objects` is content-addressed and immutable: a row is the bytes whose sha256 is its key.
 * The replay computes the sha256 of every raw file it meets, so an object already stored under
 * that sha256 (with its stored length equal to its `size`) is kept instead of being deleted and
 * written again — rewriting every workspace file version's bytes made up most of a rebuild's
 * I/O. Rows whose length disagrees with their size are rewritten from the blob; objects the replay
 * no longer references are deleted at the end (`finishObjects`), so the table ends up exactly as
 * a replay from empty would leave it.
 *
 * `record_versions` is not emptied first: the replay's versions get ids 1…n in replay order —
 * the ids inserting them into the emptied table would give them — and each is written over the
 * row that has its id (an upsert by primary key; the table's secondary indexes are suspended
 * meanwhile and it has no triggers but the full-text ones, which are dropped), then rows past n
 * are deleted (`finish`). The rows end up exactly those of an empty table filled by the replay,
 * but SQLite leaves a page it rewrites with the same bytes clean: rebuilding an index that was
 * right already writes no `record_versions` page to the WAL (deleting every row first, then
 * inserting them again, made every page of the table a new write).
 *
 * Each version's full-text row is written with it: the writer is used with the full-text triggers
 * dropped and the full-text index emptied (see `takeOverFts` in rebuild.ts).
 */
export class RebuildWriter {
  private readonly insertVersionStmt: Database.Statement;
  private readonly insertFtsStmt: Database.Statement;
  private readonly insertRecordStmt: Database.Statement;
  private readonly insertObjectStmt: Database.Statement;
  private readonly insertRawStmt: Database.Statement;
  private readonly insertFacetStmt: Database.Statement;
  private readonly insertFacetChangeStmt: Database.Statement;
  private readonly objects = new Set<string>();
  /** Versions written so far: the last id given. */
  private versions = 0;
  /** Objects stored before the replay (kept when the replay meets them). */
  readonly stored: Set<string>;

  constructor(private readonly sqlite: Database.Database) {
    // One pass: objects whose stored length is wrong are deleted (and written again from the blob
    // when the replay meets them), the others are kept. The lengths come from `raw_objects_length_idx`
    // (sha256, size, length(data)), a covering index: a few hundred pages instead of the table's one
    // or more per object.
    const rows = sqlite.prepare('SELECT sha256, length(data) IS size FROM raw_objects').raw().all() as [string, number][];
    const remove = sqlite.prepare('DELETE FROM raw_objects WHERE sha256 = ?');
    this.stored = new Set();
    for (const [sha256, intact] of rows) {
      if (intact) this.stored.add(sha256);
      else remove.run(sha256);
    }
    this.insertVersionStmt = sqlite.prepare(VERSION_UPSERT);
    this.insertFtsStmt = sqlite.prepare(INSERT_WORDS);
    this.insertRecordStmt = sqlite.prepare(insertSql('records', RECORD_COLUMNS));
    this.insertObjectStmt = sqlite.prepare('INSERT INTO raw_objects (sha256, size, data) VALUES (?, ?, ?) ON CONFLICT DO NOTHING');
    this.insertRawStmt = sqlite.prepare(insertSql('raw_file_versions', RAW_COLUMNS));
    this.insertFacetStmt = sqlite.prepare(insertSql('record_facets', ['agent_id', 'facet', 'value', 'count']));
    this.insertFacetChangeStmt = sqlite.prepare(insertSql('record_facet_changes', ['agent_id', 'seq', 'facet', 'value', 'change']));
  }

  /** A target for one agent, starting from an empty index. */
  agent(agentId: string): AgentRebuildTarget {
    return new AgentRebuildTarget(this, agentId);
  }

  /**
   * Inserts the version and its full-text row, if it has one (as the incremental indexer does,
   * statements.ts).
   */
  insertVersion(f: RecordFields, m: VersionMeta): void {
    const id = ++this.versions;
    this.insertVersionStmt.run(id, m.agent_id, f.record_id, m.seq, m.entry_kind, m.op, f.content, f.content_sha256, f.memory_type,
      f.namespace, f.status, f.origin_file, f.heading, f.tags, f.record_json, f.created_at, f.updated_at, f.observed_at, m.synced_at,
      m.moved_from);
    if (hasFullText(m.op)) this.insertFtsStmt.run(id, indexText(f.content));
  }

  insertRecord(r: RecordRow): void {
    this.insertRecordStmt.run(r.agent_id, r.record_id, r.first_seq, r.last_seq, r.deleted_seq, r.born_at, r.last_changed_at);
  }

  putObject(sha256: string, bytes: Uint8Array | null): void {
    if (this.objects.has(sha256)) return;
    this.objects.add(sha256);
    if (this.stored.has(sha256)) return;
    if (!bytes) throw new Error(`raw object ${sha256} came without its bytes`);
    this.insertObjectStmt.run(sha256, bytes.byteLength, Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength));
  }

  /** Deletes the versions past the replay's last id and the stored objects the replay did not reference. */
  finish(): void {
    this.sqlite.prepare('DELETE FROM record_versions WHERE id > ?').run(this.versions);
    const remove = this.sqlite.prepare('DELETE FROM raw_objects WHERE sha256 = ?');
    for (const sha256 of this.stored) if (!this.objects.has(sha256)) remove.run(sha256);
  }

  insertRawVersion(r: RawVersionRow): void {
    this.insertRawStmt.run(r.agent_id, r.path, r.seq, r.entry_kind, r.sha256, r.size, r.deleted, r.reconstructed ?? null);
  }

  insertFacet(agentId: string, c: FacetCount): void {
    this.insertFacetStmt.run(agentId, c.facet, c.value, c.count);
  }

  insertFacetChange(agentId: string, seq: number, c: FacetCount): void {
    this.insertFacetChangeStmt.run(agentId, seq, c.facet, c.value, c.count);
  }
}

export class AgentRebuildTarget implements IndexTarget {
  private readonly records = new Map<string, CurrentRecord>();
  private readonly heads = new Map<string, string | null>();
  /** The fields each `records` row was built from: its tombstone fields without re-parsing its JSON. */
  private readonly fields = new Map<string, RecordFields>();
  /** The live-facet counters, changed entry by entry as the incremental indexer changes its rows. */
  private readonly facets = new Map<string, FacetCount>();
  /** Each sequence's changes of them (`record_facet_changes`), summed entry by entry. */
  private readonly facetChanges = new Map<number, Map<string, FacetCount>>();

  constructor(private readonly writer: RebuildWriter, readonly agentId: string) {}

  recordRows(ids: readonly string[]): Map<string, CurrentRecord> {
    const out = new Map<string, CurrentRecord>();
    for (const id of ids) {
      const row = this.records.get(id);
      if (row) out.set(id, row);
    }
    return out;
  }

  liveRecords(): CurrentRecord[] {
    return [...this.records.values()].filter((r) => r.deleted_seq === null)
      .sort((a, b) => a.first_seq - b.first_seq || compareBinary(a.record_id, b.record_id));
  }

  rawHeads(paths: readonly string[]): Map<string, string | null> {
    const out = new Map<string, string | null>();
    for (const path of paths) {
      const head = this.heads.get(path);
      if (head !== undefined) out.set(path, head);
    }
    return out;
  }

  liveRaw(): Map<string, string> {
    const live = [...this.heads].filter((e): e is [string, string] => e[1] !== null).sort((a, b) => compareBinary(a[0], b[0]));
    return new Map(live);
  }

  insertVersion(fields: RecordFields, meta: VersionMeta): void {
    this.writer.insertVersion(fields, meta);
  }

  /**
   * `currentFields(row)` re-derives the fields from the row's canonical JSON; the fields the row was
   * built from are the same (canonical JSON of a parsed JSON value is idempotent, and every field
   * is read from that value), so they are reused when the JSON matches.
   */
  tombstoneFields(row: CurrentRecord): RecordFields {
    const known = this.fields.get(row.record_id);
    return known && known.record_json === row.record_json ? known : currentFields(row);
  }

  putRecord(row: CurrentRecord, fields: RecordFields): void {
    this.records.set(row.record_id, row);
    this.fields.set(row.record_id, fields);
  }

  putObject(sha256: string, bytes: Uint8Array | null): void {
    this.writer.putObject(sha256, bytes);
  }

  insertRawVersion(row: RawVersionRow): void {
    this.writer.insertRawVersion(row);
    this.heads.set(row.path, row.deleted ? null : row.sha256);
  }

  addFacetCounts(delta: readonly FacetCount[], seq: number): void {
    applyFacetDelta(this.facets, delta);
    let changes = this.facetChanges.get(seq);
    if (!changes) this.facetChanges.set(seq, (changes = new Map()));
    applyFacetDelta(changes, delta);
  }

  /** Writes the agent's `records` rows, live-facet counters (its final current state) and their changes per sequence. */
  finish(): void {
    const ids = [...this.records.keys()].sort(compareBinary);
    for (const id of ids) this.writer.insertRecord(this.records.get(id)!);
    for (const c of this.facets.values()) this.writer.insertFacet(this.agentId, c);
    for (const [seq, changes] of this.facetChanges) for (const c of changes.values()) this.writer.insertFacetChange(this.agentId, seq, c);
  }
}
