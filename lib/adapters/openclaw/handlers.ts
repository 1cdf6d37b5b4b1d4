import { globToRegExp } from '../shared/glob';

/** How a markdown file becomes records. */
export type Chunking = 'split' | 'whole';

/** Memory v4.1 tier of a file, carried as a `tier:<tier>` tag. */
export type Tier = 'hot' | 'warm' | 'cold' | 'buffer' | 'archive';

export interface Handler {
  memoryType: string;
  namespace: string;
  chunking: Chunking;
  /** Take created_at/observed_at from a `YYYY-MM-DD` file name. */
  dated: boolean;
  status: 'active' | 'archived';
}

interface HandlerRule {
  pattern: RegExp;
  /** What handlerFor returns for it: one object per rule, not a copy per call (an export asks for each file). */
  handler: Readonly<Handler>;
}

const DATE = '[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]';

function rule(glob: string, memoryType: string, namespace: string, chunking: Chunking, extra: Partial<Handler> = {}): HandlerRule {
  return { pattern: globToRegExp(glob), handler: Object.freeze({ memoryType, namespace, chunking, dated: false, status: 'active', ...extra }) };
}

/** CONTRACT §4.3, in order: the first matching glob wins. */
const REFERENCE_RULES: readonly HandlerRule[] = [
  rule('MEMORY.md', 'semantic', 'curated', 'split'),
  rule(`memory/${DATE}.md`, 'episodic', 'daily', 'split', { dated: true }),
  rule('memory/procedures/*.md', 'procedural', 'procedural', 'whole'),
  rule('memory/curated/*.md', 'semantic', 'curated', 'whole'),
  rule('memory/active-context.md', 'summary', 'active-context', 'whole'),
  rule('memory/gating-policies.md', 'procedural', 'procedural', 'split'),
  rule('memory/project-*.md', 'semantic', 'project', 'split'),
  rule('memory/*.md', 'semantic', 'workspace', 'whole'),
];

/**
 * OpenClaw Memory v4.1 paths the reference table leaves unmatched (issue 4 item 3).
 * They are consulted only after the reference table, so reference ids never change.
 */
const V41_RULES: readonly HandlerRule[] = [
  rule('memory/semantic/*.md', 'semantic', 'semantic', 'split'),
  rule('memory/procedural/*.md', 'procedural', 'procedural', 'split'),
  rule(`memory/episodic/${DATE}.md`, 'episodic', 'episodic', 'split', { dated: true }),
  rule('memory/archive/[0-9][0-9][0-9][0-9]/[0-9][0-9]/*.md', 'episodic', 'episodic', 'split', {
    dated: true,
    status: 'archived',
  }),
];

/** The handler for a workspace-relative path, or null (file kept raw only). */
export function handlerFor(relPath: string): Readonly<Handler> | null {
  const match = REFERENCE_RULES.find((r) => r.pattern.test(relPath)) ?? V41_RULES.find((r) => r.pattern.test(relPath));
  return match ? match.handler : null;
}

/** Directories whose presence marks a workspace as using the v4.1 tiered layout. */
export const V41_MARKER_DIRS = ['memory/semantic', 'memory/procedural', 'memory/episodic'] as const;

/**
 * Tier of a file. Paths unique to v4.1 always have a tier; `MEMORY.md` (hot) and
 * `memory/working-buffer.md` (buffer) only in a v4.1 workspace, so classic workspaces
 * keep exactly the reference's tags.
 */
export function tierFor(relPath: string, v41Layout: boolean): Tier | null {
  if (/^memory\/(semantic|procedural)\/[^/]+\.md$/.test(relPath)) return 'warm';
  if (/^memory\/episodic\/[^/]+\.md$/.test(relPath)) return 'cold';
  if (/^memory\/archive\/.+\.md$/.test(relPath)) return 'archive';
  if (!v41Layout) return null;
  if (relPath === 'MEMORY.md') return 'hot';
  if (relPath === 'memory/working-buffer.md') return 'buffer';
  return null;
}

/** `YYYY-MM-DD` of a file name (`.../2026-01-15.md`), if it is a real calendar date. */
export function fileNameDate(relPath: string): string | null {
  const match = /(?:^|\/)(\d{4})-(\d{2})-(\d{2})\.md$/.exec(relPath);
  if (!match) return null;
  const iso = `${match[1]}-${match[2]}-${match[3]}`;
  const parsed = new Date(`${iso}T00:00:00Z`);
  return !Number.isNaN(parsed.getTime()) && parsed.toISOString().startsWith(iso) ? iso : null;
}

/** The instant (ms) of midnight UTC of `fileNameDate`, or null when it has none; without making the string. */
export function fileNameDay(relPath: string): number | null {
  const match = /(?:^|\/)(\d{4})-(\d{2})-(\d{2})\.md$/.exec(relPath);
  if (!match) return null;
  const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])];
  const ms = Date.UTC(year, month - 1, day);
  const at = new Date(ms);
  // A day that does not exist (2026-02-30) rolls over: not a date, as fileNameDate says. Years
  // below 1000 are left to fileNameDate (Date.UTC maps 0–99 to 1900–1999).
  if (year < 1000) {
    const date = fileNameDate(relPath);
    return date === null ? null : Date.parse(`${date}T00:00:00Z`);
  }
  return at.getUTCFullYear() === year && at.getUTCMonth() === month - 1 && at.getUTCDate() === day ? ms : null;
}
