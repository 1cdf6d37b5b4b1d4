/**
 * Test helper: every ledger and index table of either backend as rows in natural-key order, in one
 * form (surrogate version ids left out, bytes as upper-case hex), so the embedded index and the
 * PostgreSQL one can be compared row for row, and each with itself after a rebuild.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { PgLineageDb } from '@/db/pg/client';
import type { Ledger } from '@/lib/ledger/ledger';

const VERSION_COLUMNS = `agent_id, record_id, seq, entry_kind, op, content, content_sha256, memory_type, namespace, status,
  origin_file, heading, tags, record_json, created_at, updated_at, observed_at, synced_at, moved_from`;
const ENTRY_COLUMNS = 'id, agent_id, seq, kind, blob_key, sha256, size_bytes, created_at, creates, updates, deletes, moves, raw_changed, raw_deleted, manifest_created_at';
const RECORD_COLUMNS = 'agent_id, record_id, first_seq, last_seq, deleted_seq, born_at, last_changed_at';
const ACTIVITY_COLUMNS = 'agent_id, day, creates, updates, deletes, moves';
const RAW_COLUMNS = 'agent_id, path, seq, entry_kind, sha256, size, deleted, reconstructed';

export type IndexDump = Record<string, unknown[]>;

export function dumpEmbedded(ledger: Ledger): IndexDump {
  const q = (text: string) => ledger.db.sqlite.prepare(text).all();
  return {
    agents: q('SELECT * FROM agents ORDER BY id'),
    ledger_entries: q(`SELECT ${ENTRY_COLUMNS} FROM ledger_entries ORDER BY agent_id, seq, kind`),
    record_versions: q(`SELECT ${VERSION_COLUMNS} FROM record_versions ORDER BY agent_id, record_id, seq, entry_kind`),
    records: q(`SELECT ${RECORD_COLUMNS} FROM records ORDER BY agent_id, record_id`),
    raw_objects: q('SELECT sha256, size, hex(data) AS data FROM raw_objects ORDER BY sha256'),
    raw_file_versions: q(`SELECT ${RAW_COLUMNS} FROM raw_file_versions ORDER BY agent_id, path, seq, entry_kind`),
    record_facets: q('SELECT agent_id, facet, value, count FROM record_facets ORDER BY agent_id, facet, value'),
    record_facet_changes: q('SELECT agent_id, seq, facet, value, change FROM record_facet_changes ORDER BY agent_id, seq, facet, value'),
    agent_day_activity: q(`SELECT ${ACTIVITY_COLUMNS} FROM agent_day_activity ORDER BY agent_id, day`),
  };
}

export async function dumpPg(db: PgLineageDb): Promise<IndexDump> {
  const q = async (text: string) => (await db.pool.query(text)).rows as unknown[];
  const c = (columns: string) => columns.split(',').map((s) => `${s.trim()} COLLATE "C"`).join(', ');
  return {
    agents: await q('SELECT * FROM agents ORDER BY id COLLATE "C"'),
    ledger_entries: await q(`SELECT ${ENTRY_COLUMNS} FROM ledger_entries ORDER BY agent_id COLLATE "C", seq, kind COLLATE "C"`),
    record_versions: await q(`SELECT ${VERSION_COLUMNS} FROM record_versions ORDER BY ${c('agent_id, record_id')}, seq, entry_kind COLLATE "C"`),
    records: await q(`SELECT ${RECORD_COLUMNS} FROM records ORDER BY ${c('agent_id, record_id')}`),
    raw_objects: await q(`SELECT sha256, size, upper(encode(data, 'hex')) AS data FROM raw_objects ORDER BY sha256 COLLATE "C"`),
    raw_file_versions: await q(`SELECT ${RAW_COLUMNS} FROM raw_file_versions ORDER BY ${c('agent_id, path')}, seq, entry_kind COLLATE "C"`),
    record_facets: await q(`SELECT agent_id, facet, value, count FROM record_facets ORDER BY ${c('agent_id, facet, value')}`),
    record_facet_changes: await q(`SELECT agent_id, seq, facet, value, change FROM record_facet_changes
      ORDER BY agent_id COLLATE "C", seq, ${c('facet, value')}`),
    agent_day_activity: await q(`SELECT ${ACTIVITY_COLUMNS} FROM agent_day_activity ORDER BY ${c('agent_id, day')}`),
  };
}

/**
 * The statements of the migrations that fill the live-facet counters from the records live now
 * (db/migrations/0013_live_facets.sql, db/pg/migrations/0004_live_facets.sql) and their changes per
 * sequence from the versions (0016_facet_changes.sql, pg 0006_facet_changes.sql): run over emptied
 * `record_facets` and `record_facet_changes`, they must write what the fold keeps.
 */
export function facetFillStatement(dialect: 'sqlite' | 'pg'): string {
  return [
    'DELETE FROM record_facets;',
    fillStatement(dialect === 'sqlite' ? 'db/migrations/0013_live_facets.sql' : 'db/pg/migrations/0004_live_facets.sql', 'WITH live'),
    'DELETE FROM record_facet_changes;',
    fillStatement(dialect === 'sqlite' ? 'db/migrations/0016_facet_changes.sql' : 'db/pg/migrations/0006_facet_changes.sql', 'WITH nexts'),
  ].join('\n');
}

function fillStatement(file: string, start: string): string {
  const statements = fs.readFileSync(path.resolve(process.cwd(), file), 'utf8').split('--> statement-breakpoint').map((t) => t.trim());
  const fill = statements.find((t) => t.startsWith(start));
  if (!fill) throw new Error(`${file} has no statement starting with ${start}`);
  return fill;
}
