import { stat } from 'node:fs/promises';
import path from 'node:path';
import { hermesCuratedId } from '@/lib/core/ids';
import { orderRecordFields, type MemoryRecord } from '@/lib/core/record';
import { rustLines, rustTrim } from '@/lib/core/rust-str';
import { nanosToRfc3339 } from '@/lib/adapters/zeroclaw/time';

/** Workspace-relative path of Hermes' curated notes. */
export const CURATED_FILE = 'memories/MEMORY.md';

/** The curated entry separator (U+00A7 SECTION SIGN). */
export const ENTRY_SEPARATOR = '\u00a7';

/**
 * Splits curated notes into entries (CONTRACT §4.5): on `§` when the text has one
 * (each entry trimmed), else on `## ` headings when that yields several sections,
 * else the whole text. Blank entries are dropped.
 */
export function splitCuratedEntries(text: string): string[] {
  if (text.includes(ENTRY_SEPARATOR)) {
    return text.split(ENTRY_SEPARATOR).map(rustTrim).filter((e) => e.length > 0);
  }
  const sections = splitOnH2(text);
  if (sections.length > 1) return sections;
  const whole = rustTrim(text);
  return whole.length > 0 ? [whole] : [];
}

function splitOnH2(text: string): string[] {
  const sections: string[] = [];
  let current = '';
  for (const line of rustLines(text)) {
    if (line.trimStart().startsWith('## ') && rustTrim(current).length > 0) {
      sections.push(rustTrim(current));
      current = '';
    }
    current += `${line}\n`;
  }
  if (rustTrim(current).length > 0) sections.push(rustTrim(current));
  return sections;
}

const RULE_STARTS = ['always ', 'never ', "don't ", 'do not ', 'avoid ', 'prefer ', 'use '] as const;

/** procedural when the first non-blank line (stripped of `#-* `) reads like a rule, else semantic. */
export function classifyCuratedEntry(entry: string): 'procedural' | 'semantic' {
  const first = rustLines(entry).find((l) => l.trim().length > 0) ?? '';
  const head = first.replace(/^[#\-* ]+/, '').toLowerCase();
  return RULE_STARTS.some((p) => head.startsWith(p)) || head.includes(' must ') ? 'procedural' : 'semantic';
}

/**
 * One record per curated entry. Ids are `hermesCuratedId(entry, occurrence)` where
 * occurrence counts earlier identical entries, so re-ordering entries keeps every id.
 * Entries carry no timestamps; created_at is the file mtime.
 */
export function curatedRecords(args: { text: string; mtime: string; agentId: string }): MemoryRecord[] {
  const seen = new Map<string, number>();
  return splitCuratedEntries(args.text).map((entry, entryIndex) => {
    const occurrence = seen.get(entry) ?? 0;
    seen.set(entry, occurrence + 1);
    return orderRecordFields({
      id: hermesCuratedId(entry, occurrence),
      agent_id: args.agentId,
      content: entry,
      memory_type: classifyCuratedEntry(entry),
      source: { runtime: 'hermes', origin: 'memory_md', origin_file: CURATED_FILE, extraction_method: 'agent_written' },
      temporal: { created_at: args.mtime },
      status: 'active',
      tags: ['hermes', 'curated'],
      namespace: 'curated',
      raw_source_format: { entry_index: entryIndex, store: 'memory' },
    });
  });
}

/** A file's modification time as RFC 3339 UTC with its full (nanosecond) precision. */
export async function fileMtime(abs: string): Promise<string> {
  return nanosToRfc3339((await stat(abs, { bigint: true })).mtimeNs);
}

/** Curated records of a Hermes home (none when MEMORY.md is absent). */
export async function readCuratedRecords(home: string, agentId: string, text: string | null): Promise<MemoryRecord[]> {
  if (text === null) return [];
  const mtime = await fileMtime(path.join(home, ...CURATED_FILE.split('/')));
  return curatedRecords({ text, mtime, agentId });
}
