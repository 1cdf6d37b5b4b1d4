import { LARGE_LEVEL, StreamedDeflate } from './deflate-ahead';
import type { LineBytes } from './record-lines';

/** The first buffer of a partition's lines; each next one is twice as large, up to {@link MAX_CHUNK_BYTES}. */
const FIRST_CHUNK_BYTES = 64 * 1024;
const MAX_CHUNK_BYTES = 4 * 1024 * 1024;
/** A partition's Deflate starts ahead once its lines reach this size (a smaller one deflates in a few ms). */
const STREAM_FROM_BYTES = 1024 * 1024;

interface Part {
  chunk: Buffer;
  at: number;
  size: number;
  /** Full buffers' bytes not yet given to a Deflate (none started yet). */
  held: Buffer[];
  stream: StreamedDeflate | null;
}

/**
 * Record lines (JSONL, `\n` after each) encoded partition by partition into a few large buffers
 * rather than a Buffer each: a partition's lines follow each other, so the archive writer copies
 * them as one slice. With `deflateAhead`, a partition that grows large has its Deflate started in
 * the worker (deflate-ahead.ts `StreamedDeflate`) as its buffers fill — its bytes are deflated
 * while the rest are still being serialized, instead of after, when the archive is written. The
 * buffers are then shared memory (the worker reads them in place) and are never written again.
 *
 * `partition` is the file the writer will put the record in; when it cannot be told (null: the
 * writer will refuse the record), no Deflate is started ahead at all.
 */
export class PartitionLines {
  private readonly parts = new Map<string, Part>();
  private ahead: boolean;

  constructor(options: { deflateAhead: boolean }) {
    this.ahead = options.deflateAhead;
  }

  add(json: string, partition: string | null): LineBytes {
    if (partition === null) this.stopAhead();
    const part = this.part(partition ?? '');
    // At most 3 bytes per UTF-16 unit, and the `\n`.
    const most = 3 * json.length + 1;
    if (part.chunk.length - part.at < most) this.nextChunk(part, most);
    const source = part.chunk;
    const start = part.at;
    const end = start + source.write(json, start, 'utf8');
    source[end] = 0x0a;
    part.at = end + 1;
    part.size += end + 1 - start;
    if (this.ahead && part.stream === null && part.size >= STREAM_FROM_BYTES && partition !== null) this.startStream(part);
    return { source, start, end };
  }

  /**
   * No more lines: each partition's Deflate started ahead is given its last bytes and ended. Returns
   * them by partition file, for `writeSnapshot({ partitionsAhead })`.
   */
  finish(): Map<string, StreamedDeflate> {
    const streams = new Map<string, StreamedDeflate>();
    for (const [file, part] of this.parts) {
      if (!part.stream) continue;
      if (part.at > 0) part.stream.write(part.chunk.subarray(0, part.at));
      part.stream.end();
      streams.set(file, part.stream);
    }
    return streams;
  }

  /** Stops every Deflate started (the lines will not be written). */
  abort(): void {
    this.stopAhead();
  }

  private part(file: string): Part {
    let part = this.parts.get(file);
    if (!part) this.parts.set(file, (part = { chunk: Buffer.alloc(0), at: 0, size: 0, held: [], stream: null }));
    return part;
  }

  private nextChunk(part: Part, most: number): void {
    if (part.at > 0) {
      const full = part.chunk.subarray(0, part.at);
      if (part.stream) part.stream.write(full);
      else if (this.ahead) part.held.push(full);
    }
    const size = Math.max(most, Math.min(MAX_CHUNK_BYTES, part.chunk.length === 0 ? FIRST_CHUNK_BYTES : part.chunk.length * 2));
    part.chunk = this.ahead ? Buffer.from(new SharedArrayBuffer(size)) : Buffer.allocUnsafe(size);
    part.at = 0;
  }

  private startStream(part: Part): void {
    const stream = StreamedDeflate.start(LARGE_LEVEL);
    if (!stream) return this.stopAhead();
    part.stream = stream;
    for (const piece of part.held.splice(0)) stream.write(piece);
    // The bytes so far of the buffer being filled go now; it is continued in a new one.
    this.nextChunk(part, 0);
  }

  private stopAhead(): void {
    this.ahead = false;
    for (const part of this.parts.values()) {
      part.stream?.abort();
      part.stream = null;
      part.held = [];
    }
  }
}
