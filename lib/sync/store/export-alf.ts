/**
 * The base a store stands for, as the `.alf` a sync with the `.alf` layout would have kept: the
 * records of every file in the order of the last export (partitioned by our writer), their lines
 * as the log holds them, the raw files, the manifest of the sync that wrote the state. The same
 * bytes as that `.alf` (history.property.test.ts compares them). What `lineage state export`
 * writes for the reference CLI to take over, and what the recovery rules read a base from.
 */
import { readFile } from 'node:fs/promises';
import { writeSnapshot } from '@/lib/core/archive';
import type { LineBytes } from '@/lib/core/archive/record-lines';
import { lineOnlyRecord } from '@/lib/core/archive/write-snapshot';
import type { MemoryRecord } from '@/lib/core/record';
import { snapshotFromExport } from '../snapshot';
import { statePaths } from '../state';
import { StoreDamaged } from './errors';
import { readIndex, type StoreIndex } from './index-file';
import { storePaths } from './paths';
import { parseTable } from './table';

/** The base `.alf` bytes of the agent's store when it is at `sequence` (else null: none, or another). */
export async function storeBaseBytes(alfHome: string, agentId: string, sequence?: number): Promise<{ bytes: Uint8Array; index: StoreIndex } | null> {
  const dir = statePaths(alfHome, agentId).dir;
  const read = await readIndex(storePaths(dir, agentId).index).catch(() => null);
  if (!read || (sequence !== undefined && read.index.sequence !== sequence)) return null;
  const { index } = read;
  const log = await readFile(storePaths(dir, agentId).log(index.generation));
  if (log.length < index.logLength) throw new StoreDamaged(`client state of ${agentId}: its log is shorter than its index says`);
  const records: MemoryRecord[] = [];
  const lines: LineBytes[] = [];
  const raw = new Map<string, Uint8Array>();
  for (const file of index.files) {
    raw.set(file.rel, log.subarray(file.raw.off, file.raw.off + file.raw.len));
    if (!file.table) continue;
    for (const row of parseTable(log.subarray(file.table.off, file.table.off + file.table.len), `client state table of ${file.rel}`)) {
      records.push(lineOnlyRecord(row.id, { partition: row.partition }));
      lines.push({ source: log, start: row.line.off, end: row.line.off + row.line.len });
    }
  }
  const { meta } = index;
  const snapshot = snapshotFromExport({ runtime: 'openclaw', agentId, agentName: meta.agent_name, raw, layers: meta.layers, excludedByAlfignore: 0, warnings: [] }, new Date(meta.created_at), records);
  return { bytes: await writeSnapshot(snapshot, { recordLines: lines, storeRaw: meta.store_raw }), index };
}
