/**
 * Where a ledger's bytes go: every blob of a blobs directory (stored whole, the old layout) parsed
 * as a ZIP, its bytes split into ZIP headers (local headers, data descriptors, central directory,
 * end record) and members' compressed bytes by kind (records JSONL, raw files, manifests), plus
 * each member's first deflate block type. Used to pick the at-rest layout of FsBlobStore.
 *
 *   npx tsx bench/ledger/breakdown.ts <data>/blobs
 */
import fs from 'node:fs';
import path from 'node:path';

export interface Breakdown {
  blobs: number; bytes: number; headers: number;
  members: Record<'records' | 'raw' | 'manifest' | 'other', { count: number; compressed: number; inflated: number }>;
  blockTypes: Record<'stored' | 'fixed' | 'dynamic', number>;
}

function kindOf(name: string): keyof Breakdown['members'] {
  if (name.startsWith('raw/')) return 'raw';
  if (name.endsWith('.jsonl')) return 'records';
  if (name.endsWith('manifest.json')) return 'manifest';
  return 'other';
}

export function breakdownOf(files: string[]): Breakdown {
  const out: Breakdown = {
    blobs: 0, bytes: 0, headers: 0,
    members: { records: { count: 0, compressed: 0, inflated: 0 }, raw: { count: 0, compressed: 0, inflated: 0 }, manifest: { count: 0, compressed: 0, inflated: 0 }, other: { count: 0, compressed: 0, inflated: 0 } },
    blockTypes: { stored: 0, fixed: 0, dynamic: 0 },
  };
  for (const file of files) {
    const buf = fs.readFileSync(file);
    out.blobs++;
    out.bytes += buf.length;
    const eocd = buf.lastIndexOf(Buffer.from([0x50, 0x4b, 0x05, 0x06]));
    const count = buf.readUInt16LE(eocd + 10);
    let at = buf.readUInt32LE(eocd + 16);
    let data = 0;
    for (let i = 0; i < count; i++) {
      const method = buf.readUInt16LE(at + 10);
      const compressed = buf.readUInt32LE(at + 20);
      const inflated = buf.readUInt32LE(at + 24);
      const nameLen = buf.readUInt16LE(at + 28);
      const name = buf.subarray(at + 46, at + 46 + nameLen).toString('utf8');
      const local = buf.readUInt32LE(at + 42);
      const localData = local + 30 + buf.readUInt16LE(local + 26) + buf.readUInt16LE(local + 28);
      const kind = out.members[kindOf(name)];
      kind.count++;
      kind.compressed += compressed;
      kind.inflated += inflated;
      data += compressed;
      if (method === 8 && compressed > 0) {
        const btype = (buf[localData]! >> 1) & 3;
        out.blockTypes[btype === 0 ? 'stored' : btype === 1 ? 'fixed' : 'dynamic']++;
      } else out.blockTypes.stored++;
      at += 46 + nameLen + buf.readUInt16LE(at + 30) + buf.readUInt16LE(at + 32);
    }
    out.headers += buf.length - data;
  }
  return out;
}

if (process.argv[1]?.endsWith('breakdown.ts')) {
  const dir = process.argv[2]!;
  const files = fs.readdirSync(dir).filter((n) => /\.alf(-delta)?$/.test(n)).map((n) => path.join(dir, n));
  process.stdout.write(`${JSON.stringify(breakdownOf(files), null, 2)}\n`);
}
