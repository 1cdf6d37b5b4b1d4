import { rustTrimEnd } from '@/lib/core/rust-str';
import type { MemoryRecord } from '@/lib/core/record';
import { isSafeRelPath } from '../shared/raw-write';
import { isNeverRaw } from '../shared/sync-marker';

const DAILY_NAMESPACES = new Set(['daily', 'episodic']);

/**
 * Renders records as OpenClaw markdown files when an archive has no OpenClaw raw files
 * (cross-runtime restore, CONTRACT §6 step 5): `curated` → `MEMORY.md`; daily/episodic →
 * their origin file or `memory/<date>.md`; others → their origin file when it is a safe
 * relative `.md` path, else `memory/<namespace>.md`. Within a file, records keep their
 * source order (line_start when known, else archive order) and are joined by blank lines.
 */
export function reconstructMemoryFiles(records: readonly MemoryRecord[]): Map<string, string> {
  const byFile = new Map<string, { record: MemoryRecord; index: number }[]>();
  records.forEach((record, index) => {
    const file = targetFile(record);
    const list = byFile.get(file) ?? [];
    list.push({ record, index });
    byFile.set(file, list);
  });
  const out = new Map<string, string>();
  for (const file of [...byFile.keys()].sort()) {
    const ordered = byFile.get(file)!.sort((a, b) => lineStart(a.record) - lineStart(b.record) || a.index - b.index);
    const body = ordered.map((e) => rustTrimEnd(e.record.content)).filter((c) => c.length > 0);
    if (body.length > 0) out.set(file, `${body.join('\n\n')}\n`);
  }
  return out;
}

/** The workspace-relative file a record is rendered into. */
export function targetFile(record: MemoryRecord): string {
  if (record.namespace === 'curated') return 'MEMORY.md';
  const origin = safeOrigin(record.source.origin_file);
  if (origin !== null) return origin;
  if (DAILY_NAMESPACES.has(record.namespace)) return `memory/${recordDate(record)}.md`;
  return `memory/${sanitizeNamespace(record.namespace)}.md`;
}

function safeOrigin(origin: unknown): string | null {
  if (typeof origin !== 'string' || !origin.endsWith('.md') || !isSafeRelPath(origin) || isNeverRaw(origin)) return null;
  return origin;
}

function recordDate(record: MemoryRecord): string {
  const when = record.temporal.observed_at || record.temporal.created_at;
  const parsed = typeof when === 'string' ? new Date(when) : new Date(Number.NaN);
  return Number.isNaN(parsed.getTime()) ? 'undated' : parsed.toISOString().slice(0, 10);
}

/** A namespace as one safe file-name segment (`session:cli` → `session-cli`). */
export function sanitizeNamespace(namespace: string): string {
  const cleaned = namespace.replace(/[^A-Za-z0-9._-]+/g, '-').replace(/^[-.]+|[-.]+$/g, '');
  return cleaned.length > 0 ? cleaned : 'memory';
}

function lineStart(record: MemoryRecord): number {
  const value = record.raw_source_format?.line_start;
  return typeof value === 'number' && Number.isFinite(value) ? value : Number.MAX_SAFE_INTEGER;
}
