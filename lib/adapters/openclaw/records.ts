import { nodeCrypto } from '@/lib/core/builtin';
import { birthIdOfTrimmed, chunkOccurrences } from '@/lib/core/ids';
import { splitSections, wholeFileSection, type Section } from '@/lib/core/markdown';
import type { MemoryRecord, RecordTemporal } from '@/lib/core/record';
import { sha256Hex } from '@/lib/core/uuid';
import type { RecordSlot } from '../types';
import { fileNameDate, type Handler, type Tier } from './handlers';
import { reusedSectionKeys, type KeySource } from './section-keys';
import { dedupe, hashtags, importanceTags, lineTwoTags, withoutLineTwo } from './tags';

/** One markdown file as the export read it. */
export interface MarkdownFile {
  relPath: string;
  text: string;
  /** RFC 3339 mtime of the file. */
  mtime: string;
  handler: Handler;
  tier: Tier | null;
}

/**
 * The records of one file (CONTRACT §4.3): chunks by the handler, birth ids by the
 * occurrence rule over the file's full section list, tags = namespace + importance
 * tags + hashtags, then, for v4.1 tiered files, the `#tags:` line-2 tags and the tier.
 */
export function fileRecords(agentId: string, file: MarkdownFile): MemoryRecord[] {
  return keyedFile(agentId, file).slots(() => false).map((slot) => slot.record!);
}

/**
 * Changes whenever what goes into a record changes in a way the key below does not capture (a
 * new tag rule, a new field): every remembered key is then unknown, and every record is built.
 */
const RECORD_KEY_VERSION = 'openclaw-record-1';

/** A file chunked, with its records' keys, before it is known which of them to build. */
export interface KeyedFile {
  /** The created_at all its records sort by (known without building them). */
  createdAt: string;
  /** Its records' keys, in order. */
  keys: readonly string[];
  /** How many of them were hashed now (the others were known: remembered keys, or a previous keying's). */
  hashed: number;
  /**
   * Per section, the previous keying's section whose key it took over (it is that section: same
   * lines, heading, content and occurrence), else -1; null when it was keyed without one.
   */
  readonly taken: Int32Array | null;
  /**
   * Whether section i was taken over and its trimmed content is no other section's, in this
   * version of the file or the previous one (section-keys.ts); null when `taken` is.
   */
  readonly alone: ((i: number) => boolean) | null;
  /** The id section i's record is built with (its birth id). */
  birthId(i: number): string;
  /**
   * The file's slots (see RecordSlot): records whose key `known` accepts are left unbuilt. With
   * `skip`, a section whose `skip[i]` is set has none (its record is carried over by the caller).
   */
  slots(known: (key: string) => boolean, skip?: Uint8Array): RecordSlot[];
}

/**
 * Chunks a file and computes its records' keys. A key is a digest of everything its record is built
 * from except the file's mtime (which only sets the values of `temporal`): the agent, the file's path
 * and what the path decides (handler, date, tier), the file's line-2 tags, and the section (content,
 * heading, lines, occurrence of its trimmed content, which with the path decides the birth id).
 * `textAgain` gives the file's text again if a known record is built after all.
 */
export function keyedFile(agentId: string, file: MarkdownFile, textAgain: () => string = () => file.text, previous?: PreviousKeying): KeyedFile {
  const sections = chunk(file);
  const occurrences = chunkOccurrences(sections.map((s) => s.content));
  const fileTags = file.tier === null ? null : lineTwoTags(file.text);
  const fileKey = fileKeyOf(agentId, file, fileTags);
  const keyOf = (i: number) => sectionKey(fileKey, sections[i]!, occurrences[i]!.occurrence);
  const reused = previous === undefined ? null : reusedKeys({ agentId, file, fileKey, sections, occurrences, previous, keyOf });
  // A key taken over is read from the previous keying when asked for (a carried section's never is).
  const given = reused?.keys ?? sections.map((_, i) => keyOf(i));
  // Only the previous keys are kept (not the previous text, which the sync no longer needs).
  const previousKeys = previous?.keys;
  const keyAt = (i: number): string => (given[i] ??= previousKeys!.key(reused!.taken[i]!));
  // A changed file's ids are asked for by the sync's carry check (store/plan.ts), then its records are
  // built with them: kept when asked for, and taken by `slots`; nothing is kept when only `slots` asks (a first sync).
  const computeBirthId = (i: number) => birthIdOfTrimmed('openclaw', agentId, file.relPath, occurrences[i]!.trimmed, occurrences[i]!.occurrence);
  let birthIds: (string | undefined)[] | null = null;
  const birthId = (i: number) => ((birthIds ??= new Array<string | undefined>(sections.length))[i] ??= computeBirthId(i));
  return {
    createdAt: temporal(file).created_at,
    get keys() {
      for (let i = 0; i < given.length; i++) keyAt(i);
      return given as string[];
    },
    hashed: reused?.computed ?? given.length,
    taken: reused?.taken ?? null,
    alone: reused?.alone ?? null,
    birthId,
    slots(known, skip) {
      let group: FileGroup | null = null;
      let shared: FileShared | null = null;
      const out: RecordSlot[] = [];
      for (let i = 0; i < sections.length; i++) {
        if (skip?.[i]) continue;
        const key = keyAt(i);
        if (known(key)) out.push(new KnownSlot(key, (group ??= new FileGroup(agentId, { ...file, text: '' }, textAgain)), i));
        else {
          shared ??= new FileShared(agentId, file);
          out.push(new BuiltSlot(key, buildRecord({ agentId, file, section: sections[i]!, id: birthIds?.[i] ?? computeBirthId(i), fileTags, shared }), shared));
        }
      }
      return out;
    },
  };
}

/**
 * What a file was when it was keyed last (its text then and its keys, as a sync's client state
 * keeps them), so that the sections that did not change keep their keys without being hashed again.
 * Only for the same path, agent, tier and key version: the file key then must be the file key now.
 */
export interface PreviousKeying {
  text: string;
  keys: KeySource;
}

function fileKeyOf(agentId: string, file: MarkdownFile, fileTags: string[] | null): string {
  const { handler } = file;
  return sha256Hex(JSON.stringify([RECORD_KEY_VERSION, agentId, file.relPath, handler.memoryType, handler.namespace, handler.chunking,
    handler.status, handler.dated ? fileNameDate(file.relPath) : null, file.tier, fileTags]));
}

/** The keys of the previous keying's unchanged sections taken over (section-keys.ts); null: its file key was another. */
function reusedKeys(args: {
  agentId: string; file: MarkdownFile; fileKey: string; sections: Section[]; occurrences: { trimmed: string; occurrence: number }[];
  previous: PreviousKeying; keyOf: (i: number) => string;
}): { keys: (string | undefined)[]; computed: number; taken: Int32Array; alone: (i: number) => boolean } | null {
  const before = { ...args.file, text: args.previous.text };
  // The line-2 tags are in the file key: when they changed, no key is the same.
  if (fileKeyOf(args.agentId, before, args.file.tier === null ? null : lineTwoTags(before.text)) !== args.fileKey) return null;
  return reusedSectionKeys({ sections: args.sections, occurrences: args.occurrences, previous: { sections: chunk(before), keys: args.previous.keys }, keyOf: args.keyOf });
}

/**
 * A file whose keys are known from an earlier export of the same bytes (see {@link fileDigest}):
 * nothing is chunked. Every slot is left unbuilt; one whose key the caller does not know is built
 * when asked, from the file's text chunked then.
 */
export function keyedFileFromKeys(agentId: string, file: Omit<MarkdownFile, 'text'>, keys: readonly string[], textAgain: () => string): KeyedFile {
  const group = new FileGroup(agentId, { ...file, text: '' }, textAgain, keys.length);
  return {
    createdAt: temporal({ ...file, text: '' }).created_at,
    keys,
    hashed: 0,
    taken: null,
    alone: null,
    birthId: (i) => group.birthId(i),
    slots(_known, skip) {
      const out: RecordSlot[] = [];
      for (let i = 0; i < keys.length; i++) if (!skip?.[i]) out.push(new KnownSlot(keys[i]!, group, i));
      return out;
    },
  };
}

/** Changes when the digest below takes its inputs differently. */
const FILE_DIGEST_VERSION = 'openclaw-file-1';

/** What a kept record table of this adapter depends on besides the file: its keys' and digests' versions. */
export const RECORD_STATE_VERSION = `${RECORD_KEY_VERSION}/${FILE_DIGEST_VERSION}`;

/**
 * The digest of everything a file's record keys derive from (see `keyedFile`): the key version,
 * the agent, the file's path (which decides its handler and date), its tier, and its bytes (which
 * decide its sections, its line-2 tags and whether it decodes at all). Two files with the same
 * digest have the same keys.
 */
export function fileDigest(agentId: string, relPath: string, tier: Tier | null, bytes: Uint8Array): string {
  return nodeCrypto().createHash('sha256')
    .update(JSON.stringify([FILE_DIGEST_VERSION, RECORD_KEY_VERSION, agentId, relPath, tier]))
    .update('\n')
    .update(bytes)
    .digest('hex');
}

let keyScratch = Buffer.allocUnsafe(64 * 1024);

/**
 * A section's key: the sha256 (first 32 hex digits) of the UTF-8 of `fileKey`, the section's lines
 * and occurrence, its heading and its content, each encoded on its own — injective: fixed-width
 * file key, numbers with separators, the heading length-prefixed (`-` for none), content last.
 * Hashed as one string (one call: a large store has tens of thousands of sections), which is the
 * same bytes, the parts before the heading being ASCII — unless the heading ends in a high
 * surrogate and the content starts with a low one: joined they would be one character (4 bytes),
 * encoded apart each is a U+FFFD. Such a section (no `## ` section: its content starts with `#`)
 * is encoded part by part into a reused buffer, as every key was before.
 */
export function sectionKey(fileKey: string, section: Section, occurrence: number): string {
  const heading = section.heading;
  const content = section.content;
  if (heading === null || !surrogatesMeet(heading, content)) {
    return sha256Hex(`${fileKey}${section.lineStart},${section.lineEnd},${occurrence},${heading === null ? '-' : `${heading.length}:${heading}`}${content}`).slice(0, 32);
  }
  const need = 3 * (fileKey.length + heading.length + content.length) + 64;
  if (keyScratch.length < need) keyScratch = Buffer.allocUnsafe(Math.max(need, keyScratch.length * 2));
  let n = keyScratch.write(fileKey, 0, 'utf8');
  n += keyScratch.write(`${section.lineStart},${section.lineEnd},${occurrence},${heading.length}:`, n, 'latin1');
  n += keyScratch.write(heading, n, 'utf8');
  n += keyScratch.write(content, n, 'utf8');
  return sha256Hex(keyScratch.subarray(0, n)).slice(0, 32);
}

/** Whether `a` ends in a high surrogate and `b` starts with a low one (joined, they make one character). */
function surrogatesMeet(a: string, b: string): boolean {
  const last = a.length === 0 ? 0 : a.charCodeAt(a.length - 1);
  const first = b.length === 0 ? 0 : b.charCodeAt(0);
  return last >= 0xd800 && last <= 0xdbff && first >= 0xdc00 && first <= 0xdfff;
}

type ChunkedFile = { file: MarkdownFile; sections: Section[]; occurrences: { trimmed: string; occurrence: number }[]; fileTags: string[] | null; shared: FileShared };

/**
 * What builds a file's known records if they are asked for after all (rarely): the file's text,
 * decoded again, chunked again. Known slots hold no section and no text, which keeps a large
 * store's export small.
 *
 * The chunked file is held weakly: records built one after another (a reconcile that builds every
 * record) share it — a WeakRef's target lives at least until the current job ends — but a sync that
 * builds one record of the file to spot-check it does not keep the whole file chunked in memory
 * for as long as the slot lives (the rest of the sync).
 */
class FileGroup {
  private built: WeakRef<ChunkedFile> | null = null;

  /** `sectionCount`: how many sections the keys it was given say the file has (checked when chunked). */
  constructor(
    private readonly agentId: string,
    private readonly fileWithoutText: MarkdownFile,
    private readonly textAgain: () => string,
    private readonly sectionCount?: number,
  ) {}

  birthId(index: number): string {
    const { file, occurrences } = this.chunked();
    const { trimmed, occurrence } = occurrences[index]!;
    return birthIdOfTrimmed('openclaw', this.agentId, file.relPath, trimmed, occurrence);
  }

  build(index: number): MemoryRecord {
    const { file, sections, fileTags, shared } = this.chunked();
    return buildRecord({ agentId: this.agentId, file, section: sections[index]!, id: this.birthId(index), fileTags, shared });
  }

  private chunked(): ChunkedFile {
    let built = this.built?.deref();
    if (built === undefined) {
      const file = { ...this.fileWithoutText, text: this.textAgain() };
      const sections = chunk(file);
      if (this.sectionCount !== undefined && sections.length !== this.sectionCount) {
        throw new Error(`${file.relPath}: the keys remembered for its bytes name ${this.sectionCount} sections, it has ${sections.length}`);
      }
      const fileTags = file.tier === null ? null : lineTwoTags(file.text);
      built = { file, sections, occurrences: chunkOccurrences(sections.map((s) => s.content)), fileTags, shared: new FileShared(this.agentId, file) };
      this.built = new WeakRef(built);
    }
    return built;
  }
}

/**
 * A slot whose record is built. A class rather than an object with a `build` closure: a closure
 * made here would hold this file's whole chunking (every section, occurrence and key) for as long
 * as the slot lives, which is the whole sync.
 */
class BuiltSlot implements RecordSlot {
  constructor(readonly key: string, readonly record: MemoryRecord, private readonly lines: FileShared) {}

  build(): MemoryRecord {
    return this.record;
  }

  json(): string {
    return this.lines.line(this.record);
  }
}

/**
 * What every record `buildRecord` makes of one file shares, worked out once per file rather than
 * per record: its source's extraction method, its timestamps, its tier tag, and the JSON of those
 * parts for its records' lines. `line(record)`: the JSONL line of such a record from that JSON and
 * the record's own fields (id, content, category, confidence, tags, raw_source_format) — the text
 * `recordJson` gives for it (JSON.stringify of its fields in this order), at about half the cost
 * on a large store: the shared half of each line is not serialized again per record. Only for a
 * record as `buildRecord` made it with this (same field order, these shared values).
 */
class FileShared {
  readonly extraction: string;
  readonly temporal: RecordTemporal;
  readonly tierTag: string | null;
  private readonly afterId: string;
  private readonly memoryType: string;
  private readonly shared: string;
  private readonly namespace: string;

  constructor(agentId: string, file: MarkdownFile) {
    this.extraction = extractionMethod(file.relPath);
    this.temporal = temporal(file);
    this.tierTag = file.tier === null ? null : `tier:${file.tier}`;
    this.afterId = `,"agent_id":${JSON.stringify(agentId)},"content":`;
    this.memoryType = `,"memory_type":${JSON.stringify(file.handler.memoryType)}`;
    this.shared = `,"source":${JSON.stringify(recordSource(file, this.extraction))},"temporal":${JSON.stringify(this.temporal)},"status":${JSON.stringify(file.handler.status)}`;
    this.namespace = `,"namespace":${JSON.stringify(file.handler.namespace)},"raw_source_format":{"heading":`;
  }

  line(record: MemoryRecord): string {
    const place = record.raw_source_format as { heading: string | null; line_end: number; line_start: number };
    const category = record.category === undefined ? '' : `,"category":${JSON.stringify(record.category)}`;
    const confidence = record.confidence === undefined ? '' : `,"confidence":${JSON.stringify(record.confidence)}`;
    return `{"id":${JSON.stringify(record.id)}${this.afterId}${JSON.stringify(record.content)}${this.memoryType}${category}${this.shared}${confidence}`
      + `,"tags":${JSON.stringify(record.tags)}${this.namespace}${JSON.stringify(place.heading)},"line_end":${JSON.stringify(place.line_end)},"line_start":${JSON.stringify(place.line_start)}}}`;
  }
}

class KnownSlot implements RecordSlot {
  readonly record = null;

  constructor(readonly key: string, private readonly group: FileGroup, private readonly index: number) {}

  build(): MemoryRecord {
    return this.group.build(this.index);
  }
}

function chunk(file: MarkdownFile): Section[] {
  if (file.handler.chunking === 'split') return splitSections(file.text);
  const whole = wholeFileSection(file.text);
  return whole ? [whole] : [];
}

function buildRecord(args: {
  agentId: string;
  file: MarkdownFile;
  section: Section;
  id: string;
  fileTags: string[] | null;
  shared: FileShared;
}): MemoryRecord {
  const { file, section, shared } = args;
  const scanned = args.fileTags === null ? section.content : withoutLineTwo(section.content, section.lineStart);
  const importance = importanceTags(scanned);
  const tags = [file.handler.namespace, ...importance.names, ...hashtags(scanned)];
  if (args.fileTags !== null) tags.push(...args.fileTags);
  if (shared.tierTag !== null) tags.push(shared.tierTag);
  // Built whole in schema field order (what orderRecordFields would produce), optional members
  // only when set; each record its own objects (nothing shared between records).
  const id = args.id;
  const agent_id = args.agentId;
  const content = section.content;
  const memory_type = file.handler.memoryType;
  const source = recordSource(file, shared.extraction);
  const t = shared.temporal;
  const times: RecordTemporal = t.observed_at === undefined
    ? { created_at: t.created_at, updated_at: t.updated_at }
    : { created_at: t.created_at, updated_at: t.updated_at, observed_at: t.observed_at };
  const status = file.handler.status;
  const namespace = file.handler.namespace;
  const raw_source_format = { heading: section.heading, line_end: section.lineEnd, line_start: section.lineStart };
  const category = importance.names[0];
  const confidence = importance.maxScore ?? undefined;
  const unique = dedupe(tags);
  if (category === undefined && confidence === undefined) {
    return { id, agent_id, content, memory_type, source, temporal: times, status, tags: unique, namespace, raw_source_format };
  }
  if (confidence === undefined) {
    return { id, agent_id, content, memory_type, category, source, temporal: times, status, tags: unique, namespace, raw_source_format };
  }
  if (category === undefined) {
    return { id, agent_id, content, memory_type, source, temporal: times, status, confidence, tags: unique, namespace, raw_source_format };
  }
  return { id, agent_id, content, memory_type, category, source, temporal: times, status, confidence, tags: unique, namespace, raw_source_format };
}

function recordSource(file: MarkdownFile, extraction: string): MemoryRecord['source'] {
  return { runtime: 'openclaw', origin: 'workspace', origin_file: file.relPath, extraction_method: extraction };
}

/** User-authored: the curated MEMORY.md and gating policies; the agent writes the rest. */
function extractionMethod(relPath: string): string {
  const lower = relPath.toLowerCase();
  return lower === 'memory.md' || lower.includes('gating-policies') ? 'user_authored' : 'agent_written';
}

function temporal(file: MarkdownFile): RecordTemporal {
  const date = file.handler.dated ? fileNameDate(file.relPath) : null;
  if (date === null) return { created_at: file.mtime, updated_at: file.mtime };
  const midnight = `${date}T00:00:00Z`;
  return { created_at: midnight, updated_at: file.mtime, observed_at: midnight };
}

/**
 * Records sorted by created_at, stable, as the reference does. Timestamps are compared
 * as instants (fraction digits vary), not as strings.
 */
export function sortByCreatedAt(records: MemoryRecord[]): MemoryRecord[] {
  return sortByInstant(records, (record) => record.temporal.created_at);
}

/** Items sorted by an RFC 3339 timestamp compared as an instant, stable. */
export function sortByInstant<T>(items: readonly T[], timestampOf: (item: T) => string): T[] {
  // Records of one file share their created_at: compute each distinct key once.
  const keys = new Map<string, string>();
  const keyOf = (timestamp: string) => {
    let key = keys.get(timestamp);
    if (key === undefined) keys.set(timestamp, (key = instantKey(timestamp)));
    return key;
  };
  return items
    .map((item, index) => ({ item, index, key: keyOf(timestampOf(item)) }))
    .sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : a.index - b.index))
    .map((entry) => entry.item);
}

/** Sortable key: epoch milliseconds (zero-padded) + nanosecond remainder of the fraction. */
function instantKey(timestamp: string): string {
  const ms = Date.parse(timestamp);
  const fraction = /\.(\d+)/.exec(timestamp)?.[1] ?? '';
  const subMs = fraction.padEnd(9, '0').slice(3, 9);
  const base = Number.isNaN(ms) ? '~' : String(ms + 8.64e15).padStart(17, '0');
  return `${base}.${subMs}`;
}
