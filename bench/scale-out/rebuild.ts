/**
 * Rebuild time: the PostgreSQL index rebuilt from the bucket's blobs (`rebuildIndex` on the
 * scale-out storage: every blob listed, read back over S3, sha256-checked, folded, written), beside
 * the embedded rebuild of the same ledger (SQLite + the blob files). Also the S3 share alone: every
 * entry's blob listed and read once, nothing folded.
 */
import type { LineageStorage } from '@/lib/storage/types';
import { median } from '../lib/stats';

export interface RebuildRow {
  entries: number;
  record_versions: number;
  embedded_ms: number[];
  scale_out_ms: number[];
  /** ListObjectsV2 of the bucket + one GetObject per entry, sequential, as the rebuild reads them. */
  s3_read_ms: number;
  embedded_median_ms: number;
  scale_out_median_ms: number;
}

async function timed<T>(fn: () => Promise<T>): Promise<{ ms: number; value: T }> {
  const t0 = performance.now();
  const value = await fn();
  return { ms: performance.now() - t0, value };
}

export async function measureRebuild(params: {
  sqlite: LineageStorage; postgres: LineageStorage; agentId: string; reps: number; log: (l: string) => void;
}): Promise<RebuildRow> {
  const { sqlite, postgres, log } = params;
  const embedded: number[] = [];
  const scaleOut: number[] = [];
  let summary = { entries: 0, record_versions: 0 };
  for (let i = 0; i < params.reps; i++) {
    const e = await timed(() => sqlite.rebuildIndex());
    embedded.push(Math.round(e.ms));
    const s = await timed(() => postgres.rebuildIndex());
    scaleOut.push(Math.round(s.ms));
    if (s.value.entries !== e.value.entries || s.value.record_versions !== e.value.record_versions) {
      throw new Error(`rebuilds differ: embedded ${JSON.stringify(e.value)}, scale-out ${JSON.stringify(s.value)}`);
    }
    summary = s.value;
    log(`  rebuild ${i + 1}/${params.reps}: embedded ${Math.round(e.ms)} ms, PostgreSQL from S3 ${Math.round(s.ms)} ms (${s.value.entries} entries → ${s.value.record_versions} versions)`);
  }
  const entries = await postgres.listEntries({ agentId: params.agentId });
  const read = await timed(async () => {
    await postgres.blobs.list();
    for (const entry of entries) await postgres.blobs.get(entry.blob_key);
  });
  log(`  S3 alone: list + ${entries.length} GETs in ${Math.round(read.ms)} ms`);
  return {
    ...summary, embedded_ms: embedded, scale_out_ms: scaleOut, s3_read_ms: Math.round(read.ms),
    embedded_median_ms: Math.round(median(embedded)), scale_out_median_ms: Math.round(median(scaleOut)),
  };
}
