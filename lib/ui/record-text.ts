/** How a memory record is named and previewed in lists (pure helpers). */
const firstLine = (content: string) => content.split('\n').find((l) => l.trim() !== '')?.trim() ?? '';
const clip = (text: string, n: number) => (text.length > n ? `${text.slice(0, n - 1)}…` : text);

/**
 * A record's display title: its heading; else its key (ZeroClaw rows, which have no heading); else
 * the first markdown heading or first line of its text (whole-file records, Hermes notes); else its
 * file's name.
 */
export function recordTitle(record: { heading: string | null; origin_file: string | null; content: string; key?: string | null }): string {
  if (record.heading) return record.heading;
  if (record.key) return record.key;
  const line = firstLine(record.content).replace(/^#+\s*/, '');
  if (line) return clip(line, 90);
  return record.origin_file?.split('/').pop() ?? '(empty)';
}

/**
 * The text of a memory without the line its title came from, on one line, for previews (all of it
 * when the title is a key, which is not part of the text).
 */
export function bodyPreview(content: string, heading: string | null, key: string | null = null): string {
  if (!heading && key) return content.replace(/\s+/g, ' ').trim();
  const title = recordTitle({ heading, origin_file: null, content });
  const lines = content.split('\n');
  const index = lines.findIndex((l) => l.trim() !== '');
  const first = lines[index]?.trim().replace(/^#+\s*/, '') ?? '';
  const body = index >= 0 && (first === title || clip(first, 90) === title) ? lines.slice(index + 1) : lines;
  return body.join(' ').replace(/\s+/g, ' ').trim();
}

/** The runtime's key of a record (`raw_source_format.key`, e.g. a ZeroClaw memory's key), if it has one. */
export function recordKey(record: unknown): string | null {
  const raw = (record as { raw_source_format?: unknown } | null)?.raw_source_format;
  const key = raw && typeof raw === 'object' ? (raw as { key?: unknown }).key : undefined;
  return typeof key === 'string' && key.trim() !== '' ? key : null;
}

/** The key of a memory from its newest version that carries one (a tombstone repeats the last record). */
export function lineageKey(lineage: { versions: { record: unknown }[] }): string | null {
  for (let i = lineage.versions.length - 1; i >= 0; i -= 1) {
    const key = recordKey(lineage.versions[i]?.record);
    if (key) return key;
  }
  return null;
}
