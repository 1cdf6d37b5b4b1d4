/**
 * CPU per put of the first N blobs of a blobs directory into a fresh FsBlobStore, packing on and
 * off, alternating (the machine is shared: CPU time, not wall time, is the figure).
 *
 *   npx tsx bench/ledger/put-cost.ts <data>/blobs [N]
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { FsBlobStore } from '@/lib/ledger/blob-store';
import { ledgerOrder } from './repack';

async function cpuPerPut(names: string[], from: string, pack: boolean): Promise<number> {
  const dir = fs.mkdtempSync(path.join(fs.existsSync('/dev/shm') ? '/dev/shm' : os.tmpdir(), 'put-cost-'));
  const blobs = names.map((n) => [n.split('~').join('/'), new Uint8Array(fs.readFileSync(path.join(from, n)))] as const);
  const store = new FsBlobStore(dir, { pack });
  const t0 = process.cpuUsage();
  for (const [key, bytes] of blobs) await store.put(key, bytes);
  const used = process.cpuUsage(t0);
  fs.rmSync(dir, { recursive: true, force: true });
  return (used.user + used.system) / 1000 / blobs.length;
}

async function main(): Promise<void> {
  const from = process.argv[2]!;
  const n = Number(process.argv[3] ?? 1000);
  const names = ledgerOrder(fs.readdirSync(from).filter((x) => /\.alf(-delta)?$/.test(x))).slice(0, n);
  const rows: Record<string, number[]> = { whole: [], packed: [] };
  for (let i = 0; i < 3; i++) {
    rows.whole!.push(await cpuPerPut(names, from, false));
    rows.packed!.push(await cpuPerPut(names, from, true));
  }
  process.stdout.write(`${JSON.stringify({ blobs: names.length, cpu_ms_per_put: rows })}\n`);
}

void main();
