/**
 * What both formats of the store index (`index-file.ts`) share: the entries a sync works with,
 * the header line and the summary line. The header is a text line in both:
 * `lineage-state <version> <sequence> <generation> <log length> <live bytes> <alf identity or -> <context> <files>`,
 * then the summary (StoreMeta) as a JSON line.
 */
import type { FileStat } from '@/lib/adapters/types';
import type { JsonObject } from '@/lib/core/json';
import { StoreDamaged } from './errors';

/**
 * Kinds: `s` bears records, and a sync of the same file would change nothing (stable); `u` bears
 * records, not known to be stable; `n` bears no records; `r` bears no records although its path
 * would (not UTF-8): its stat data are never trusted, it is read every time.
 */
export type FileKind = 's' | 'u' | 'n' | 'r';

export interface Ref {
  off: number;
  len: number;
}

export interface IndexFile {
  rel: string;
  stat: FileStat;
  /** The adapter's file-keys digest of a record-bearing file (null for others). */
  digest: string | null;
  kind: FileKind;
  raw: Ref;
  /** The record table (kinds s and u). */
  table: Ref | null;
  /** The bytes of its records' lines (what compaction would copy). */
  linesBytes: number;
}

/** What the next base is written from besides its records and raw files. */
export interface StoreMeta {
  agent_name: string;
  /** The workspace the stat data were taken in (absolute). */
  workspace: string;
  /** The base manifest's `created_at` (the time of the sync that wrote this state). */
  created_at: string;
  /** The adapter's record-key version the tables and stable kinds were made with. */
  key_version: string;
  layers: Partial<Record<'identity' | 'principals' | 'credentials' | 'attachments', JsonObject>>;
  /** The base keeps its raw files Stored (a sync's own next base), not Deflated (a first sync's base: its upload). */
  store_raw: boolean;
  /**
   * When the index was rewritten after its stat data were taken (`lineage state export` names the
   * `.alf` it wrote): the first write's mtime (ns, decimal), which stays the racy-timestamp bound.
   */
  stat_time_ns?: string;
}

export interface StoreIndex {
  sequence: number;
  generation: number;
  logLength: number;
  liveBytes: number;
  /** The identity of a `{agent}-snapshot.alf` holding this very state, when one is kept. */
  alf: string | null;
  context: string;
  meta: StoreMeta;
  files: IndexFile[];
}

export type IndexHead = Omit<StoreIndex, 'meta' | 'files'> & { count: number };

export function headerLine(version: number, index: StoreIndex): string {
  const { sequence, generation, logLength, liveBytes, alf, context, files } = index;
  if (!/^[\x21-\x7e]+$/.test(context)) throw new Error(`store index: context ${JSON.stringify(context)} is not a token`);
  return `lineage-state ${version} ${sequence} ${generation} ${logLength} ${liveBytes} ${alf ?? '-'} ${context} ${files.length}`;
}

export function parseHeader(line: string, version: number): IndexHead {
  const header = line.split(' ');
  if (`${header[0]} ${header[1]}` !== `lineage-state ${version}` || header.length !== 9) throw new StoreDamaged(`store index: not a lineage-state ${version} index`);
  const [sequence, generation, logLength, liveBytes, count] = [...header.slice(2, 6), header[8]!].map((t) => (/^\d{1,15}$/.test(t) ? Number(t) : NaN));
  const alf = header[6]!;
  if ([sequence, generation, logLength, liveBytes, count].some((n) => Number.isNaN(n)) || !/^(\d+:\d+:-?\d+|-)$/.test(alf)) {
    throw new StoreDamaged('store index: unreadable header');
  }
  return { sequence: sequence!, generation: generation!, logLength: logLength!, liveBytes: liveBytes!, alf: alf === '-' ? null : alf, context: header[7]!, count: count! };
}

export function parseMeta(line: string | undefined): StoreMeta {
  let doc: Partial<StoreMeta>;
  try {
    doc = JSON.parse(line ?? '') as Partial<StoreMeta>;
  } catch {
    throw new StoreDamaged('store index: unreadable summary');
  }
  const strings = [doc.agent_name, doc.workspace, doc.created_at, doc.key_version];
  if (strings.some((s) => typeof s !== 'string') || typeof doc.layers !== 'object' || doc.layers === null || typeof doc.store_raw !== 'boolean') throw new StoreDamaged('store index: incomplete summary');
  return doc as StoreMeta;
}

/** StoreDamaged unless a file's refs lie within the log the index describes. */
export function checkRefs(file: IndexFile, logLength: number): void {
  const { raw, table } = file;
  if (raw.off + raw.len > logLength || (table && table.off + table.len > logLength)) throw new StoreDamaged('store index: a ref past the end of its log');
}
