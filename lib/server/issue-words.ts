/**
 * A query-string validation failure said in words ("The search text must be at most 500 characters
 * long; it has 612."), not in the validator's notation ("q: Too big: expected string to have <=500
 * characters"). Pure: zod's issue objects in, one sentence each out.
 */
import type { z } from 'zod';
import { echoInput } from '@/lib/core/echo';

/** What each dashboard query parameter is, for a sentence. */
const LABELS: Record<string, string> = {
  q: 'The search text',
  seq: 'The sequence',
  at: 'The sequence (at)',
  before: 'The sequence to page before (before)',
  from: 'The first sequence (from)',
  to: 'The second sequence (to)',
  limit: 'The page size (limit)',
  offset: 'The offset',
  cursor: 'The page cursor',
  path: 'The file path',
  format: 'The archive format',
  time: 'The time',
  since: 'The start of the window (since)',
  agent: 'The agent',
  op: 'The operation (op)',
};

function label(path: PropertyKey[]): string {
  const name = path.map(String).join('.');
  return LABELS[name] ?? (name ? `The parameter “${name}”` : 'The query');
}

/** The most values a sentence lists; a query string of 1,000 unknown parameters names the first few. */
const LIST_MAX = 10;

function list(values: unknown[]): string {
  const words = values.slice(0, LIST_MAX).map((v) => `“${echoInput(String(v))}”`);
  if (values.length > LIST_MAX) return `${words.join(', ')} and ${values.length - LIST_MAX} more`;
  return words.length <= 1 ? (words[0] ?? '') : `${words.slice(0, -1).join(', ')} or ${words[words.length - 1]}`;
}

/** One sentence for one issue; `input` is the raw query-string object, to say how long a value was. */
export function issueInWords(issue: z.core.$ZodIssue, input: Record<string, unknown> = {}): string {
  const who = label(issue.path);
  const value = issue.path.length === 1 ? input[String(issue.path[0])] : undefined;
  switch (issue.code) {
    case 'too_big': {
      if (issue.origin === 'string') {
        const has = typeof value === 'string' ? `; it has ${value.trim().length}` : '';
        return `${who} must be at most ${issue.maximum} characters long${has}.`;
      }
      return `${who} must be at most ${issue.maximum}.`;
    }
    case 'too_small':
      if (issue.origin === 'string') return Number(issue.minimum) <= 1 ? `${who} must not be empty.` : `${who} must be at least ${issue.minimum} characters long.`;
      return `${who} must be at least ${issue.minimum}.`;
    case 'invalid_type':
      return value === undefined ? `${who} is required.` : `${who} must be a ${issue.expected}.`;
    case 'invalid_value':
      return `${who} must be ${list(issue.values)}.`;
    case 'unrecognized_keys':
      return issue.keys.length === 1 ? `“${echoInput(issue.keys[0]!)}” is not a parameter of this page.` : `${list(issue.keys)} are not parameters of this page.`;
    default: {
      // Our schemas' own messages are written as the end of a sentence ("must be a non-negative integer").
      const text = issue.message.replace(/\.$/, '');
      return /^(must|is|has)\b/.test(text) ? `${who} ${text}.` : `${text.charAt(0).toUpperCase()}${text.slice(1)}.`;
    }
  }
}

/**
 * One issue per parameter: a number past 2^53 fails both the integer check (at most
 * 9007199254740991) and the schema's own bound, which is the one to say (`limit` at most 1000) —
 * the smallest maximum; else the parameter's first issue. Said twice, the same sentence read as a stutter.
 */
function onePerParameter(issues: readonly z.core.$ZodIssue[]): z.core.$ZodIssue[] {
  const kept = new Map<string, z.core.$ZodIssue>();
  for (const issue of issues) {
    const key = JSON.stringify(issue.path.map(String));
    const before = kept.get(key);
    if (!before) kept.set(key, issue);
    else if (before.code === 'too_big' && issue.code === 'too_big' && Number(issue.maximum) < Number(before.maximum)) kept.set(key, issue);
  }
  return [...kept.values()];
}

/** Every parameter's issue of a failed parse, as sentences. */
export function zodErrorInWords(error: z.ZodError, input?: Record<string, unknown>): string {
  return onePerParameter(error.issues).map((issue) => issueInWords(issue, input)).join(' ');
}
