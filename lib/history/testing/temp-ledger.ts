/** Test helpers: a ledger in a fresh temp directory, and full dumps of the index tables. */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { closeDatabase } from '@/db/client';
import { openLedger, type Ledger } from '@/lib/ledger';

export function tempLedger(options: Parameters<typeof openLedger>[1] = {}): { ledger: Ledger; dir: string; cleanup: () => void } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'lineage-test-'));
  const ledger = openLedger(dir, options);
  return {
    ledger, dir,
    cleanup: () => {
      closeDatabase(ledger.db);
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Every index table as rows in natural-key order (surrogate `id` of record_versions left out). */
export function dumpIndex(ledger: Ledger): Record<string, unknown[]> {
  const q = (text: string) => ledger.db.sqlite.prepare(text).all();
  return {
    ledger_entries: q('SELECT * FROM ledger_entries ORDER BY agent_id, seq, kind'),
    record_versions: q(`SELECT agent_id, record_id, seq, entry_kind, op, content, content_sha256, memory_type, namespace, status,
      origin_file, heading, tags, record_json, created_at, updated_at, observed_at, synced_at, moved_from
      FROM record_versions ORDER BY agent_id, record_id, seq, entry_kind`),
    records: q('SELECT * FROM records ORDER BY agent_id, record_id'),
    raw_objects: q('SELECT sha256, size, hex(data) AS data FROM raw_objects ORDER BY sha256'),
    raw_file_versions: q('SELECT * FROM raw_file_versions ORDER BY agent_id, path, seq, entry_kind'),
    record_facets: q('SELECT * FROM record_facets ORDER BY agent_id, facet, value'),
    record_facet_changes: q('SELECT * FROM record_facet_changes ORDER BY agent_id, seq, facet, value'),
    agent_day_activity: q('SELECT * FROM agent_day_activity ORDER BY agent_id, day'),
    words: q(`SELECT v.agent_id, v.record_id, v.seq, v.entry_kind FROM record_versions_words f
      JOIN record_versions v ON v.id = f.rowid WHERE record_versions_words MATCH '"note"' ORDER BY 1, 2, 3, 4`),
  };
}

/** Row counts of the ledger and index tables. */
export function countRows(ledger: Ledger): Record<string, number> {
  const out: Record<string, number> = {};
  for (const t of ['agents', 'ledger_entries', 'record_versions', 'records', 'raw_objects', 'raw_file_versions']) {
    out[t] = (ledger.db.sqlite.prepare(`SELECT count(*) AS n FROM ${t}`).get() as { n: number }).n;
  }
  return out;
}

/** Every file under the blob root, relative. */
export function blobFiles(dir: string): string[] {
  const root = path.join(dir, 'blobs');
  if (!fs.existsSync(root)) return [];
  return (fs.readdirSync(root, { recursive: true }) as string[])
    .filter((p) => fs.statSync(path.join(root, p)).isFile()).map((p) => p.split(path.sep).join('/')).sort();
}
