/**
 * The records of a `.zip` whose members' sizes and CRC-32s are known before each is written (whole
 * members in memory: no data descriptors), names in UTF-8 (flag bit 11), a Unix mode of 0644: the
 * local header before each member's data, its central-directory record, and the end records (ZIP64
 * ones past 65,534 members or 4 GiB). What the workspace download stream (lib/history/queries/
 * zip-stream.ts) and the archive writer (zip-write.ts) both write.
 */

const U32 = 0xffffffff;

/** A member as its records name it: its data is `compressed` bytes at `offset` (`method` 8: Deflate, 0: stored). */
export interface ZipMember { name: Buffer; crc: number; method: number; compressed: number; size: number; offset: number }

/** A DOS date and time, as the records hold every member's. */
export interface DosDateTime { time: number; date: number }

export function localHeader(e: ZipMember, dos: DosDateTime): Buffer {
  const h = Buffer.alloc(30);
  h.writeUInt32LE(0x04034b50, 0);
  h.writeUInt16LE(20, 4);
  h.writeUInt16LE(0x0800, 6);
  h.writeUInt16LE(e.method, 8);
  h.writeUInt16LE(dos.time, 10);
  h.writeUInt16LE(dos.date, 12);
  h.writeUInt32LE(e.crc, 14);
  h.writeUInt32LE(e.compressed, 18);
  h.writeUInt32LE(e.size, 22);
  h.writeUInt16LE(e.name.length, 26);
  h.writeUInt16LE(0, 28);
  return h;
}

/**
 * A member's central-directory record, its name included. `madeBySpec`: the spec version it says
 * it was made by (Unix as the system, so that the mode is read); by default 2.0, or 4.5 with ZIP64.
 */
export function centralRecord(e: ZipMember, dos: DosDateTime, madeBySpec?: number): Buffer {
  const zip64 = e.offset >= U32;
  const extra = zip64 ? Buffer.alloc(12) : Buffer.alloc(0);
  if (zip64) {
    extra.writeUInt16LE(0x0001, 0);
    extra.writeUInt16LE(8, 2);
    extra.writeBigUInt64LE(BigInt(e.offset), 4);
  }
  const h = Buffer.alloc(46);
  h.writeUInt32LE(0x02014b50, 0);
  h.writeUInt16LE((3 << 8) | (madeBySpec ?? (zip64 ? 45 : 20)), 4);
  h.writeUInt16LE(zip64 ? 45 : 20, 6);
  h.writeUInt16LE(0x0800, 8);
  h.writeUInt16LE(e.method, 10);
  h.writeUInt16LE(dos.time, 12);
  h.writeUInt16LE(dos.date, 14);
  h.writeUInt32LE(e.crc, 16);
  h.writeUInt32LE(e.compressed, 20);
  h.writeUInt32LE(e.size, 24);
  h.writeUInt16LE(e.name.length, 28);
  h.writeUInt16LE(extra.length, 30);
  h.writeUInt32LE((0o100644 << 16) >>> 0, 38);
  h.writeUInt32LE(zip64 ? U32 : e.offset, 42);
  return Buffer.concat([h, e.name, extra]);
}

/** The end of the central directory (`count` records, `cdSize` bytes at `cdOffset`), with its ZIP64 records when needed. */
export function endRecords(count: number, cdOffset: number, cdSize: number): Buffer {
  const zip64 = count >= 0xffff || cdOffset >= U32 || cdSize >= U32;
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(zip64 ? 0xffff : count, 8);
  end.writeUInt16LE(zip64 ? 0xffff : count, 10);
  end.writeUInt32LE(zip64 ? U32 : cdSize, 12);
  end.writeUInt32LE(zip64 ? U32 : cdOffset, 16);
  if (!zip64) return end;
  const record = Buffer.alloc(56);
  record.writeUInt32LE(0x06064b50, 0);
  record.writeBigUInt64LE(44n, 4);
  record.writeUInt16LE(45, 12);
  record.writeUInt16LE(45, 14);
  record.writeBigUInt64LE(BigInt(count), 24);
  record.writeBigUInt64LE(BigInt(count), 32);
  record.writeBigUInt64LE(BigInt(cdSize), 40);
  record.writeBigUInt64LE(BigInt(cdOffset), 48);
  const locator = Buffer.alloc(20);
  locator.writeUInt32LE(0x07064b50, 0);
  locator.writeBigUInt64LE(BigInt(cdOffset + cdSize), 8);
  locator.writeUInt32LE(1, 16);
  return Buffer.concat([record, locator, end]);
}
