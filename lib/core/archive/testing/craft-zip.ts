import { crc32, deflateRawSync } from 'node:zlib';

/** One member of a hand-made ZIP; every header field can be made to lie. */
export interface CraftedEntry {
  name: string;
  data?: Uint8Array | string;
  /** 0 = stored, 8 = deflate (default). */
  method?: 0 | 8;
  /** Uncompressed size written in the headers (default: the true size). */
  declaredSize?: number;
  /** CRC-32 written in the headers (default: the true CRC). */
  declaredCrc?: number;
  /** Encrypted flag (bit 0). */
  encrypted?: boolean;
}

/**
 * Builds ZIP bytes by hand, for hostile-archive tests: names yazl refuses to write
 * (backslashes, `..`, absolute, duplicates), sizes that lie, bad CRCs.
 */
export function craftZip(entries: readonly CraftedEntry[], opts: { entryCount?: number } = {}): Uint8Array {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const entry of entries) {
    const raw = toBuffer(entry.data ?? '');
    const method = entry.method ?? 8;
    const stored = method === 8 ? deflateRawSync(raw) : raw;
    const name = Buffer.from(entry.name, 'utf8');
    const fields = {
      flags: 0x800 | (entry.encrypted ? 1 : 0),
      method,
      crc: entry.declaredCrc ?? crc32(raw),
      compressedSize: stored.length,
      size: entry.declaredSize ?? raw.length,
    };
    const local = localHeader(name, fields);
    locals.push(local, stored);
    centrals.push(centralHeader(name, fields, offset));
    offset += local.length + stored.length;
  }
  const central = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(opts.entryCount ?? entries.length, 8);
  end.writeUInt16LE(opts.entryCount ?? entries.length, 10);
  end.writeUInt32LE(central.length, 12);
  end.writeUInt32LE(offset, 16);
  return new Uint8Array(Buffer.concat([...locals, central, end]));
}

interface HeaderFields {
  flags: number;
  method: number;
  crc: number;
  compressedSize: number;
  size: number;
}

function localHeader(name: Buffer, f: HeaderFields): Buffer {
  const header = Buffer.alloc(30);
  header.writeUInt32LE(0x04034b50, 0);
  header.writeUInt16LE(20, 4);
  header.writeUInt16LE(f.flags, 6);
  header.writeUInt16LE(f.method, 8);
  header.writeUInt32LE(f.crc >>> 0, 14);
  header.writeUInt32LE(f.compressedSize, 18);
  header.writeUInt32LE(f.size, 22);
  header.writeUInt16LE(name.length, 26);
  return Buffer.concat([header, name]);
}

function centralHeader(name: Buffer, f: HeaderFields, offset: number): Buffer {
  const header = Buffer.alloc(46);
  header.writeUInt32LE(0x02014b50, 0);
  header.writeUInt16LE(20, 4);
  header.writeUInt16LE(20, 6);
  header.writeUInt16LE(f.flags, 8);
  header.writeUInt16LE(f.method, 10);
  header.writeUInt32LE(f.crc >>> 0, 16);
  header.writeUInt32LE(f.compressedSize, 20);
  header.writeUInt32LE(f.size, 24);
  header.writeUInt16LE(name.length, 28);
  header.writeUInt32LE(offset, 42);
  return Buffer.concat([header, name]);
}

function toBuffer(data: Uint8Array | string): Buffer {
  return typeof data === 'string' ? Buffer.from(data, 'utf8') : Buffer.from(data);
}
