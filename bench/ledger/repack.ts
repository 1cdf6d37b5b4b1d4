/**
 * Puts every blob of a blobs directory, in ledger order (agent, sequence, delta before snapshot),
 * into a fresh FsBlobStore as ingest does, then reads each back and compares: the ledger's size
 * at rest in the packed layout for exactly the same blobs, and the put / get time.
 *
 *   npx tsx bench/ledger/repack.ts <data>/blobs <empty dir>
 */
import fs from 'node:fs';
import path from 'node:path';
import { FsBlobStore } from '@/lib/ledger/blob-store';
import { describeStructure, toStructure } from '@/lib/ledger/zip-structure';

export function ledgerOrder(names: string[]): string[] {
  const parse = (n: string) => {
    const [agent, rest] = n.split('~') as [string, string];
    return { agent, seq: Number(rest.split('-')[0]), delta: n.endsWith('-delta') ? 0 : 1 };
  };
  return [...names].sort((a, b) => {
    const x = parse(a), y = parse(b);
    return x.agent.localeCompare(y.agent) || x.seq - y.seq || x.delta - y.delta || a.localeCompare(b);
  });
}

export function filesBytes(dir: string): number {
  return fs.readdirSync(dir).reduce((n, name) => n + fs.statSync(path.join(dir, name)).size, 0);
}

export interface Repacked {
  blobs: number; whole: number; packed: number; packedFiles: number; putMs: number; getMs: number;
  /** Packed files from the structural form (ALP2) and from the bytes (ALP1). */
  structuralFiles: number; plainFiles: number;
  /** Deflated members in all blobs, and how many the structural form took apart. */
  deflatedMembers: number; takenApart: number;
}

/** Deflated members of a ZIP (local headers with method 8). */
function deflatedCount(zip: Uint8Array): number {
  let n = 0;
  const view = new DataView(zip.buffer, zip.byteOffset, zip.byteLength);
  for (let at = 0; at + 30 <= zip.byteLength && view.getUint32(at, true) === 0x04034b50;) {
    if (view.getUint16(at + 8, true) === 8) n++;
    at += 30 + view.getUint16(at + 26, true) + view.getUint16(at + 28, true) + view.getUint32(at + 18, true);
  }
  return n;
}

export async function repack(from: string, to: string): Promise<Repacked> {
  const names = ledgerOrder(fs.readdirSync(from).filter((n) => /\.alf(-delta)?$/.test(n)));
  const store = new FsBlobStore(to);
  let whole = 0;
  const t0 = performance.now();
  for (const name of names) {
    const bytes = new Uint8Array(fs.readFileSync(path.join(from, name)));
    whole += bytes.byteLength;
    await store.put(name.split('~').join('/'), bytes);
  }
  const putMs = performance.now() - t0;
  const t1 = performance.now();
  const fresh = new FsBlobStore(to);
  for (const name of names) {
    const back = await fresh.get(name.split('~').join('/'));
    if (!Buffer.from(back).equals(fs.readFileSync(path.join(from, name)))) throw new Error(`${name} did not read back byte-exact`);
  }
  const getMs = performance.now() - t1;
  const packedNames = fs.readdirSync(to).filter((n) => n.endsWith('.packed'));
  const structuralFiles = packedNames.filter((n) => fs.readFileSync(path.join(to, n)).subarray(0, 4).toString('latin1') === 'ALP2').length;
  let deflatedMembers = 0, takenApart = 0;
  for (const name of names) {
    const bytes = fs.readFileSync(path.join(from, name));
    deflatedMembers += deflatedCount(bytes);
    takenApart += describeStructure(toStructure(bytes)).members;
  }
  return {
    blobs: names.length, whole, packed: filesBytes(to), packedFiles: packedNames.length, putMs, getMs,
    structuralFiles, plainFiles: packedNames.length - structuralFiles, deflatedMembers, takenApart,
  };
}

if (process.argv[1]?.endsWith('repack.ts')) {
  repack(process.argv[2]!, process.argv[3]!).then((r) => process.stdout.write(`${JSON.stringify({ ...r, ratio: r.packed / r.whole })}\n`));
}
