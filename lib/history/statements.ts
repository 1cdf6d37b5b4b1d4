/**
 * The indexer's hot statements, prepared once per database through drizzle (`.prepare()` with
 * placeholders), so folding an entry costs a handful of statement executions, not query builds.
 */
import { and, desc, eq, sql } from 'drizzle-orm';
import type { Drizzle } from '@/db/client';
import { raw_file_versions, raw_objects, record_versions, records } from '@/db/schema';

const p = (name: string) => sql.placeholder(name);

const RECORD_SET_COLUMNS = ['first_seq', 'last_seq', 'deleted_seq', 'content', 'memory_type', 'namespace', 'status', 'origin_file',
  'heading', 'tags', 'record_json', 'born_at', 'last_changed_at'] as const;

function build(db: Drizzle) {
  return {
    recordById: db.select().from(records)
      .where(and(eq(records.agent_id, p('agent_id')), eq(records.record_id, p('record_id')))).prepare(),
    rawHead: db.select({ sha256: raw_file_versions.sha256, deleted: raw_file_versions.deleted }).from(raw_file_versions)
      .where(and(eq(raw_file_versions.agent_id, p('agent_id')), eq(raw_file_versions.path, p('path'))))
      .orderBy(desc(raw_file_versions.seq), desc(raw_file_versions.entry_kind)).limit(1).prepare(),
    insertVersion: db.insert(record_versions).values({
      agent_id: p('agent_id'), record_id: p('record_id'), seq: p('seq'), entry_kind: p('entry_kind'), op: p('op'),
      content: p('content'), content_sha256: p('content_sha256'), memory_type: p('memory_type'), namespace: p('namespace'),
      status: p('status'), origin_file: p('origin_file'), heading: p('heading'), tags: p('tags'), record_json: p('record_json'),
      created_at: p('created_at'), updated_at: p('updated_at'), observed_at: p('observed_at'), synced_at: p('synced_at'),
      moved_from: p('moved_from'),
    }).prepare(),
    upsertRecord: db.insert(records).values({
      agent_id: p('agent_id'), record_id: p('record_id'), first_seq: p('first_seq'), last_seq: p('last_seq'),
      deleted_seq: p('deleted_seq'), content: p('content'), memory_type: p('memory_type'), namespace: p('namespace'),
      status: p('status'), origin_file: p('origin_file'), heading: p('heading'), tags: p('tags'), record_json: p('record_json'),
      born_at: p('born_at'), last_changed_at: p('last_changed_at'),
    }).onConflictDoUpdate({
      target: [records.agent_id, records.record_id],
      set: Object.fromEntries(RECORD_SET_COLUMNS.map((c) => [c, sql.raw(`excluded.${c}`)])),
    }).prepare(),
    insertObject: db.insert(raw_objects).values({ sha256: p('sha256'), size: p('size'), data: p('data') })
      .onConflictDoNothing().prepare(),
    insertRawVersion: db.insert(raw_file_versions).values({
      agent_id: p('agent_id'), path: p('path'), seq: p('seq'), entry_kind: p('entry_kind'), sha256: p('sha256'),
      size: p('size'), deleted: p('deleted'),
    }).prepare(),
  };
}

export type IndexStatements = ReturnType<typeof build>;

const cache = new WeakMap<Drizzle, IndexStatements>();

/** The prepared statements of `db`, built on first use. */
export function statements(db: Drizzle): IndexStatements {
  let found = cache.get(db);
  if (!found) cache.set(db, (found = build(db)));
  return found;
}
