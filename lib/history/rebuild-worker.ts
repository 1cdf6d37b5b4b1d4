/**
 * The rebuild's helper thread: reads, verifies and prepares chunks of ledger blobs
 * (`prepareBlobFile`) while the main thread writes the index. Messages come and go on the port
 * passed in `workerData.port` (`ChunkRequest`s, and a `HelperSetup` once known); after each answer the
 * shared counter is bumped and notified, so the main thread can wait for it synchronously (it is
 * inside one SQLite transaction, not serving).
 */
import { parentPort, workerData, type MessagePort } from 'node:worker_threads';
import type { DeltaOperation } from '@/lib/core/archive/types';
import type { RecordFields } from './index-rows';
import { prepareBlobFile, type BlobJob, type PreparedDeltaLine, type PreparedEntry, type PreparedRawFile } from './ledger-blob';

/**
 * The sha256 of the raw objects stored already (their bytes need not travel). It may come after
 * the first chunk requests: until it does, every raw file is sent with its bytes.
 */
export interface HelperSetup {
  stored: string[];
}

export interface ChunkRequest {
  chunk: number;
  jobs: BlobJob[];
}

/**
 * The prepared entries of a chunk, flattened: every string of the chunk concatenated into one
 * `text` (cloned between threads as one string: a copy, with no escaping or parsing), and a
 * `tape` of numbers — entry kinds, counts, sizes, and each string's length (-1 for null) — that
 * says how to cut `text` back into the entries. The tape is transferred, not copied. Raw files'
 * bytes travel beside it: each file's entry in the tape is the index of its bytes in `bytes`
 * (or -1).
 */
export interface ChunkAnswer {
  chunk: number;
  text: string;
  tape: Float64Array;
  bytes: Uint8Array[];
}

/** Every field of `RecordFields`, in its declaration order (all are string or null). */
const FIELD_KEYS = ['record_id', 'content', 'content_sha256', 'memory_type', 'namespace', 'status', 'origin_file', 'heading', 'tags',
  'record_json', 'created_at', 'updated_at', 'observed_at'] as const satisfies readonly (keyof RecordFields)[];
// Compile-time checks: the list is complete, and every field is a string or null.
type MissingField = Exclude<keyof RecordFields, (typeof FIELD_KEYS)[number]>;
const fieldsComplete: [MissingField] extends [never] ? true : MissingField = true;
const fieldsAreText: RecordFields[keyof RecordFields] extends string | null ? true : never = true;
void fieldsComplete;
void fieldsAreText;

const NO_ENTRY = 0;
const DELTA = 1;
const SNAPSHOT = 2;

class TapeWriter {
  readonly numbers: number[] = [];
  readonly strings: string[] = [];
  readonly bytes: Uint8Array[] = [];

  number(n: number): void {
    this.numbers.push(n);
  }

  string(s: string | null): void {
    if (s === null) {
      this.numbers.push(-1);
    } else {
      this.numbers.push(s.length);
      this.strings.push(s);
    }
  }

  fields(f: RecordFields): void {
    for (const key of FIELD_KEYS) this.string(f[key]);
  }

  rawFiles(files: PreparedRawFile[]): void {
    this.number(files.length);
    for (const f of files) {
      this.string(f.path);
      this.string(f.sha256);
      this.number(f.size);
      this.number(f.bytes === null ? -1 : this.bytes.push(f.bytes) - 1);
    }
  }
}

class TapeReader {
  private at = 0;
  private offset = 0;

  constructor(private readonly text: string, private readonly tape: Float64Array, private readonly bytesList: Uint8Array[]) {}

  number(): number {
    return this.tape[this.at++]!;
  }

  string(): string | null {
    const n = this.tape[this.at++]!;
    if (n < 0) return null;
    const s = this.text.slice(this.offset, this.offset + n);
    this.offset += n;
    return s;
  }

  fields(): RecordFields {
    const out = {} as Record<(typeof FIELD_KEYS)[number], string | null>;
    for (const key of FIELD_KEYS) out[key] = this.string();
    return out as RecordFields;
  }

  rawFiles(): PreparedRawFile[] {
    const n = this.number();
    const out: PreparedRawFile[] = new Array(n);
    for (let i = 0; i < n; i++) {
      const path = this.string()!;
      const sha256 = this.string()!;
      const size = this.number();
      const b = this.number();
      out[i] = { path, sha256, size, bytes: b < 0 ? null : this.bytesList[b]! };
    }
    return out;
  }
}

/** Encodes prepared entries for `ChunkAnswer`. */
export function encodeChunk(chunk: number, prepared: (PreparedEntry | null)[]): ChunkAnswer {
  const w = new TapeWriter();
  for (const entry of prepared) {
    if (entry === null) {
      w.number(NO_ENTRY);
    } else if (entry.kind === 'delta') {
      w.number(DELTA);
      w.number(entry.lines.length);
      for (const line of entry.lines) {
        w.string(line.operation);
        w.fields(line.fields);
      }
      w.rawFiles(entry.rawChanged);
      w.number(entry.rawDeleted.length);
      for (const path of entry.rawDeleted) w.string(path);
    } else {
      w.number(SNAPSHOT);
      w.number(entry.records.length);
      for (const fields of entry.records) w.fields(fields);
      w.rawFiles(entry.raw);
    }
  }
  return { chunk, text: w.strings.join(''), tape: Float64Array.from(w.numbers), bytes: w.bytes };
}

/** Decodes a `ChunkAnswer` back into prepared entries. */
export function decodeChunk(answer: ChunkAnswer, count: number): (PreparedEntry | null)[] {
  const r = new TapeReader(answer.text, answer.tape, answer.bytes);
  const out: (PreparedEntry | null)[] = new Array(count);
  for (let i = 0; i < count; i++) {
    const kind = r.number();
    if (kind === DELTA) {
      const lines: PreparedDeltaLine[] = new Array(r.number());
      for (let k = 0; k < lines.length; k++) {
        const operation = r.string() as DeltaOperation;
        lines[k] = { operation, fields: r.fields() };
      }
      const rawChanged = r.rawFiles();
      const rawDeleted: string[] = new Array(r.number());
      for (let k = 0; k < rawDeleted.length; k++) rawDeleted[k] = r.string()!;
      out[i] = { kind: 'delta', lines, rawChanged, rawDeleted };
    } else if (kind === SNAPSHOT) {
      const records: RecordFields[] = new Array(r.number());
      for (let k = 0; k < records.length; k++) records[k] = r.fields();
      out[i] = { kind: 'snapshot', records, raw: r.rawFiles() };
    } else {
      out[i] = null;
    }
  }
  return out;
}

const data = workerData as { lineageRebuildWorker?: true; port: MessagePort; signal: Int32Array } | null;
if (parentPort && data?.lineageRebuildWorker) {
  const { port, signal } = data;
  let stored: ReadonlySet<string> = new Set();
  port.on('message', (request: HelperSetup | ChunkRequest | 'close') => {
    if (request === 'close') {
      port.close();
      return;
    }
    if ('stored' in request) {
      stored = new Set(request.stored);
      return;
    }
    const prepared = request.jobs.map((job) => {
      try {
        return prepareBlobFile(job, stored);
      } catch {
        return null;
      }
    });
    const answer = encodeChunk(request.chunk, prepared);
    port.postMessage(answer, [answer.tape.buffer as ArrayBuffer]);
    Atomics.add(signal, 0, 1);
    Atomics.notify(signal, 0);
  });
}
