/**
 * Where each memory record sits in its source file, so the workspace viewer can mark record sections.
 * Uses the record's own `line_start`/`line_end` (raw_source_format) when the API provides them,
 * else finds the record's text in the file (markdown sections are verbatim slices of it).
 */
export interface SectionRecord {
  record_id: string;
  heading: string | null;
  content: string;
  line_start?: number | null;
  line_end?: number | null;
}

export interface FileSection<R extends SectionRecord = SectionRecord> {
  record: R;
  /** 1-based, inclusive. */
  lineStart: number;
  lineEnd: number;
}

function lineOf(text: string, index: number): number {
  let line = 1;
  for (let i = text.indexOf('\n'); i >= 0 && i < index; i = text.indexOf('\n', i + 1)) line += 1;
  return line;
}

/** Sections sorted by first line; records that cannot be placed are left out. */
export function locateSections<R extends SectionRecord>(text: string, records: R[]): FileSection<R>[] {
  const out: FileSection<R>[] = [];
  let searchFrom = 0;
  const ordered = [...records].sort((a, b) => (a.line_start ?? 0) - (b.line_start ?? 0));
  for (const record of ordered) {
    if (typeof record.line_start === 'number' && typeof record.line_end === 'number') {
      out.push({ record, lineStart: record.line_start, lineEnd: record.line_end });
      continue;
    }
    const needle = record.content.trim();
    if (!needle) continue;
    let at = text.indexOf(needle, searchFrom);
    if (at < 0) at = text.indexOf(needle);
    if (at < 0) continue;
    searchFrom = at + needle.length;
    const lineStart = lineOf(text, at);
    out.push({ record, lineStart, lineEnd: lineStart + (needle.match(/\n/g)?.length ?? 0) });
  }
  return out.sort((a, b) => a.lineStart - b.lineStart);
}
