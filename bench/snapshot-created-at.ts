/**
 * What the superseded-base check (lib/ledger/ingest-base.ts `snapshotCreatedAt`) costs on the bench's
 * 50,000-record store: its first sync's snapshot is stored in a data directory, then its
 * `manifest.json` `created_at` is read from the stored blob `ROUNDS` times, interleaved, by inflating
 * the whole archive (`readZip`, as the check did) and by inflating the manifest only (`readZipMember`,
 * as it does). The blob is read (and its sha256 checked) by both alike: `blob_read` is that read,
 * `whole` and `manifest_only` the read of the archive's members after it. `npx tsx bench/snapshot-created-at.ts`
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { MANIFEST_FILE } from '@/lib/core/archive';
import { readZip, readZipMember, resolveLimits } from '@/lib/core/archive/zip-read';
import { listEntries, openLedger, readEntryBytes } from '@/lib/ledger';
import { localTarget } from '@/lib/sync/local-target';
import { syncWorkspace } from '@/lib/sync/sync';
import { largeWorkspace } from './history/large-store';
import { BENCH_AGENT_ID } from './history/replay';
import { median } from './lib/stats';

const ROUNDS = 9;

async function main(): Promise<void> {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'alf-snapshot-created-at-'));
  try {
    const dataDir = path.join(root, 'data');
    const now = Date.parse('2026-06-01T00:00:00Z');
    const clock = () => new Date(now);
    const { workspace } = largeWorkspace({ root, agentId: BENCH_AGENT_ID, now: () => now });
    await syncWorkspace({ runtime: 'openclaw', workspace, target: localTarget(dataDir, clock), alfHome: path.join(root, 'home', '.alf'), clock });
    const ledger = openLedger(dataDir);
    const [snapshot] = listEntries({ ledger, agentId: BENCH_AGENT_ID, kind: 'snapshot' });
    const reads: number[] = [];
    let bytes: Uint8Array = new Uint8Array();
    for (let i = 0; i < ROUNDS; i++) {
      const t0 = performance.now();
      bytes = await readEntryBytes({ ledger, entry: snapshot! });
      reads.push(performance.now() - t0);
    }
    const limits = resolveLimits();
    const whole: number[] = [];
    const member: number[] = [];
    let inflatedWhole = 0;
    let inflatedMember = 0;
    for (let i = 0; i < ROUNDS; i++) {
      let t0 = performance.now();
      const { files } = await readZip(bytes, limits);
      whole.push(performance.now() - t0);
      inflatedWhole = [...files.values()].reduce((sum, f) => sum + f.byteLength, 0);
      t0 = performance.now();
      const manifest = await readZipMember(bytes, MANIFEST_FILE, limits);
      member.push(performance.now() - t0);
      inflatedMember = manifest!.byteLength;
    }
    console.log(JSON.stringify({
      archive_bytes: bytes.byteLength,
      blob_read: { median_ms: Math.round(median(reads) * 10) / 10 },
      whole: { median_ms: Math.round(median(whole) * 10) / 10, inflated_bytes: inflatedWhole },
      manifest_only: { median_ms: Math.round(median(member) * 10) / 10, inflated_bytes: inflatedMember },
    }));
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
}

await main();
