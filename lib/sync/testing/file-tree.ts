import { execFileSync } from 'node:child_process';
import fs from 'node:fs';

/**
 * What "nothing written" compares, before and after: every path under `dir` with its type, size
 * and (for links) target, and the bytes of every regular file (links not followed).
 */
export function treeAndBytes(dir: string): [string, Map<string, string>] {
  const tree = execFileSync('find', [dir, '-printf', '%p %y %s %l\n']).toString().split('\n').sort().join('\n');
  const bytes = new Map<string, string>();
  for (const line of execFileSync('find', [dir, '-type', 'f']).toString().split('\n').filter(Boolean).sort()) bytes.set(line, fs.readFileSync(line).toString('base64'));
  return [tree, bytes];
}
