import path from 'node:path';
import { readControlFile } from './errors';
import { globBody } from './glob';
import { ALFIGNORE_FILE } from './sync-marker';

/**
 * Answers whether a workspace-relative forward-slash path is excluded by `.alfignore`; `isDir`: the
 * path is a directory (a pattern ending in `/` matches it then), a file when not given.
 */
export type IgnoreMatcher = (relPath: string, isDir?: boolean) => boolean;

interface IgnoreRule {
  negate: boolean;
  dirOnly: boolean;
  regex: RegExp;
}

/**
 * Loads `<workspace>/.alfignore` (absent ⇒ nothing ignored). The syntax is gitignore's:
 * blank lines and `#` comments skipped, `!` re-includes, a trailing `/` matches
 * directories only, a leading `/` (or any inner `/`) anchors the pattern at the
 * workspace root, otherwise it matches a name at any depth; `*`, `**`, `?`, `[...]`.
 * As in git, a file inside an excluded directory cannot be re-included.
 */
export async function loadAlfIgnore(workspace: string): Promise<IgnoreMatcher> {
  const text = readControlFile(path.join(workspace, ALFIGNORE_FILE), 'the paths a sync leaves out');
  return text === null ? () => false : compileAlfIgnore(text);
}

/** Builds a matcher from `.alfignore` text (pure; used by `loadAlfIgnore`). */
export function compileAlfIgnore(text: string): IgnoreMatcher {
  // A byte order mark (Windows editors write one) is no part of the first pattern, as git reads it.
  const rules = text.replace(/^\uFEFF/, '').split(/\r?\n/).map(parseRule).filter((r): r is IgnoreRule => r !== null);
  if (rules.length === 0) return () => false;
  return (relPath, isDir = false) => {
    const segments = relPath.split('/').filter((s) => s.length > 0);
    for (let depth = 1; depth < segments.length; depth++) {
      if (decide(rules, segments.slice(0, depth).join('/'), true)) return true;
    }
    return decide(rules, segments.join('/'), isDir);
  };
}

/** Last matching rule wins; no match means "not ignored". */
function decide(rules: IgnoreRule[], candidate: string, isDir: boolean): boolean {
  let ignored = false;
  for (const rule of rules) {
    if (rule.dirOnly && !isDir) continue;
    if (rule.regex.test(candidate)) ignored = !rule.negate;
  }
  return ignored;
}

function parseRule(rawLine: string): IgnoreRule | null {
  let line = stripTrailingSpaces(rawLine);
  if (line === '' || line.startsWith('#')) return null;
  let negate = false;
  if (line.startsWith('!')) {
    negate = true;
    line = line.slice(1);
  } else if (line.startsWith('\\!') || line.startsWith('\\#')) {
    line = line.slice(1);
  }
  const dirOnly = line.endsWith('/');
  if (dirOnly) line = line.replace(/\/+$/, '');
  const anchored = line.includes('/');
  line = line.replace(/^\/+/, '');
  if (line === '') return null;
  const body = globBody(line);
  const source = anchored || line.startsWith('**/') ? `^${body}$` : `^(?:.*/)?${body}$`;
  return { negate, dirOnly, regex: new RegExp(source) };
}

/** gitignore drops unescaped trailing spaces. */
function stripTrailingSpaces(line: string): string {
  return line.replace(/(?<!\\) +$/, '').replace(/\\ /g, ' ');
}
