/**
 * A streaming `.zip` writer for workspace downloads, linear in the number of files (issue 18 §5):
 * yazl looks through every entry added so far each time an entry finishes, which made a
 * 10,000-file download take seconds and hold the event loop. Here each entry is deflated and
 * written once, its central-directory record kept, in batches of a few milliseconds that yield to
 * the event loop, so other requests are served meanwhile. Sizes and CRCs are known
 * before each local header (whole files in memory), so no data descriptors; names are UTF-8
 * (flag bit 11); Zip64 end records past 65,534 entries or 4 GiB. Same inputs, same bytes.
 */
import { Readable } from 'node:stream';
import zlib from 'node:zlib';
import type { DownloadFile } from './workspace-pages';

export interface ZipSource {
  /** The entries in output order, a page at a time (each page read when the stream needs it). */
  /** Pages read at once (the database) or asynchronously (the storage seam's `downloadFiles`). */
  pages: Iterator<DownloadFile[]> | AsyncIterator<DownloadFile[]>;
  mtime: Date;
}

const BATCH_BYTES = 1 << 20;
const BATCH_MS = 8;
const U32 = 0xffffffff;

function dosDateTime(date: Date): { time: number; date: number } {
  const d = date.getUTCFullYear() < 1980 ? new Date(Date.UTC(1980, 0, 1)) : date;
  return {
    time: (d.getUTCHours() << 11) | (d.getUTCMinutes() << 5) | Math.floor(d.getUTCSeconds() / 2),
    date: ((d.getUTCFullYear() - 1980) << 9) | ((d.getUTCMonth() + 1) << 5) | d.getUTCDate(),
  };
}

interface Central { name: Buffer; crc: number; method: number; compressed: number; size: number; offset: number }

function localHeader(e: Central, dos: { time: number; date: number }): Buffer {
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

function centralRecord(e: Central, dos: { time: number; date: number }): Buffer {
  const zip64 = e.offset >= U32;
  const extra = zip64 ? Buffer.alloc(12) : Buffer.alloc(0);
  if (zip64) {
    extra.writeUInt16LE(0x0001, 0);
    extra.writeUInt16LE(8, 2);
    extra.writeBigUInt64LE(BigInt(e.offset), 4);
  }
  const h = Buffer.alloc(46);
  h.writeUInt32LE(0x02014b50, 0);
  h.writeUInt16LE((3 << 8) | (zip64 ? 45 : 20), 4); // made by Unix, so the mode below is read
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

function endRecords(count: number, cdOffset: number, cdSize: number): Buffer {
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

/** The deflated bytes, or null when storing is no larger (empty and tiny files). */
function compress(data: Buffer): Buffer | null {
  if (data.byteLength < 64) return null;
  const deflated = zlib.deflateRawSync(data);
  return deflated.byteLength < data.byteLength ? deflated : null;
}

/**
 * The archive's bytes, a batch per call of `next()`: at most `BATCH_MS` of work or `BATCH_BYTES`
 * of output. Deflating here, in one synchronous call per file, costs less in all than zlib's
 * asynchronous calls (whose per-call overhead, times 20,000 small files, took several times as
 * long); the batches keep the event loop's pauses short.
 */
async function* zipChunks(source: ZipSource): AsyncGenerator<Buffer> {
  const dos = dosDateTime(source.mtime);
  const central: Central[] = [];
  let offset = 0;
  const pages = source.pages;
  let pending: DownloadFile[] = [];
  let exhausted = false;
  const take = async (): Promise<DownloadFile | undefined> => {
    while (pending.length === 0 && !exhausted) {
      const page = await pages.next();
      if (page.done) exhausted = true;
      else pending = page.value.slice().reverse();
    }
    return pending.pop();
  };
  for (let file = await take(); file !== undefined;) {
    const started = performance.now();
    const out: Buffer[] = [];
    let bytes = 0;
    while (file !== undefined && bytes < BATCH_BYTES && performance.now() - started < BATCH_MS) {
      const { data } = file;
      const deflated = compress(data);
      const entry: Central = {
        name: Buffer.from(file.name, 'utf8'), crc: zlib.crc32(data), method: deflated ? 8 : 0,
        compressed: (deflated ?? data).byteLength, size: data.byteLength, offset,
      };
      const header = localHeader(entry, dos);
      out.push(header, entry.name, deflated ?? data);
      const length = header.byteLength + entry.name.byteLength + entry.compressed;
      offset += length;
      bytes += length;
      central.push(entry);
      file = await take();
    }
    yield Buffer.concat(out);
  }
  const records = central.map((e) => centralRecord(e, dos));
  const cdSize = records.reduce((n, r) => n + r.byteLength, 0);
  yield Buffer.concat([...records, endRecords(central.length, offset, cdSize)]);
}

/** The `.zip` of `source` as a stream: one batch per read, each in its own event-loop turn. */
export function zipStream(source: ZipSource): Readable {
  const chunks = zipChunks(source);
  return new Readable({
    read() {
      // setImmediate, not at once: between two batches the event loop serves other requests.
      setImmediate(() => {
        chunks.next().then(({ value, done }) => {
          if (done) this.push(null);
          else this.push(value);
        }, (error: Error) => this.destroy(error));
      });
    },
  });
}
