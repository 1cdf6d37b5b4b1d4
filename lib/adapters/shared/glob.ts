/**
 * Glob → RegExp for workspace-relative forward-slash paths, case-sensitive:
 * `*` stays within one path segment, `**` crosses `/` (`**\/` may match zero
 * directories), `?` is one non-`/` character, `[...]` is a character class
 * (`[!...]` negated). The whole path must match.
 */
export function globToRegExp(pattern: string): RegExp {
  return new RegExp(`^${globBody(pattern)}$`);
}

/** The regex source for a glob, without anchors (shared with `.alfignore` rules). */
export function globBody(pattern: string): string {
  let out = '';
  let i = 0;
  while (i < pattern.length) {
    const ch = pattern[i]!;
    if (ch === '*' && pattern[i + 1] === '*') {
      const slashAfter = pattern[i + 2] === '/';
      out += slashAfter ? '(?:.*/)?' : '.*';
      i += slashAfter ? 3 : 2;
    } else if (ch === '*') {
      out += '[^/]*';
      i += 1;
    } else if (ch === '?') {
      out += '[^/]';
      i += 1;
    } else if (ch === '[') {
      const cls = readClass(pattern, i);
      out += cls.source;
      i = cls.next;
    } else {
      out += escapeRegExp(ch);
      i += 1;
    }
  }
  return out;
}

function readClass(pattern: string, start: number): { source: string; next: number } {
  const close = pattern.indexOf(']', start + 2);
  if (close < 0) return { source: '\\[', next: start + 1 };
  let body = pattern.slice(start + 1, close);
  const negated = body.startsWith('!') || body.startsWith('^');
  if (negated) body = body.slice(1);
  const escaped = body.replace(/[\\\]^]/g, (c) => `\\${c}`);
  return { source: `[${negated ? '^' : ''}${escaped}]`, next: close + 1 };
}

function escapeRegExp(ch: string): string {
  return /[.*+?^${}()|[\]\\/]/.test(ch) ? `\\${ch}` : ch;
}
