import { chunkBirthIds } from '@/lib/core/ids';
import { splitSections, wholeFileSection, type Section } from '@/lib/core/markdown';
import type { MemoryRecord, RecordTemporal } from '@/lib/core/record';
import { fileNameDate, type Handler, type Tier } from './handlers';
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
  const sections = chunk(file);
  const ids = chunkBirthIds({
    runtime: 'openclaw',
    agentId,
    originFile: file.relPath,
    contents: sections.map((s) => s.content),
  });
  const fileTags = file.tier === null ? null : lineTwoTags(file.text);
  return sections.map((section, i) => buildRecord({ agentId, file, section, id: ids[i]!, fileTags }));
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
}): MemoryRecord {
  const { file, section } = args;
  const scanned = args.fileTags === null ? section.content : withoutLineTwo(section.content, section.lineStart);
  const importance = importanceTags(scanned);
  const tags = dedupe([
    file.handler.namespace,
    ...importance.names,
    ...hashtags(scanned),
    ...(args.fileTags ?? []),
    ...(file.tier === null ? [] : [`tier:${file.tier}`]),
  ]);
  // Built directly in schema field order (what orderRecordFields would produce), optional
  // members only when set.
  const record: MemoryRecord = {
    id: args.id,
    agent_id: args.agentId,
    content: section.content,
    memory_type: file.handler.memoryType,
  } as MemoryRecord;
  const category = importance.names[0];
  if (category !== undefined) record.category = category;
  record.source = {
    runtime: 'openclaw',
    origin: 'workspace',
    origin_file: file.relPath,
    extraction_method: extractionMethod(file.relPath),
  };
  record.temporal = temporal(file);
  record.status = file.handler.status;
  const confidence = importance.maxScore ?? undefined;
  if (confidence !== undefined) record.confidence = confidence;
  record.tags = tags;
  record.namespace = file.handler.namespace;
  record.raw_source_format = { heading: section.heading, line_end: section.lineEnd, line_start: section.lineStart };
  return record;
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
  // Records of one file share their created_at: compute each distinct key once.
  const keys = new Map<string, string>();
  const keyOf = (timestamp: string) => {
    let key = keys.get(timestamp);
    if (key === undefined) keys.set(timestamp, (key = instantKey(timestamp)));
    return key;
  };
  return records
    .map((record, index) => ({ record, index, key: keyOf(record.temporal.created_at) }))
    .sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : a.index - b.index))
    .map((entry) => entry.record);
}

/** Sortable key: epoch milliseconds (zero-padded) + nanosecond remainder of the fraction. */
function instantKey(timestamp: string): string {
  const ms = Date.parse(timestamp);
  const fraction = /\.(\d+)/.exec(timestamp)?.[1] ?? '';
  const subMs = fraction.padEnd(9, '0').slice(3, 9);
  const base = Number.isNaN(ms) ? '~' : String(ms + 8.64e15).padStart(17, '0');
  return `${base}.${subMs}`;
}
