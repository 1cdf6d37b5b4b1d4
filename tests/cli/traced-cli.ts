import { spawn } from 'node:child_process';
import fs from 'node:fs/promises';
import path from 'node:path';

const ROOT = path.resolve(__dirname, '../..');
const BIN = path.join(ROOT, 'bin', 'lineage.cjs');

/** `lineage <args>` under strace: its JSON output and every path it opened, with the open flags. */
export function tracedCli(args: string[], env: Record<string, string>, traceFile: string): Promise<{ json: Record<string, unknown>; opens: { file: string; flags: string }[] }> {
  return new Promise((resolve, reject) => {
    const child = spawn('strace', ['-f', '-qq', '-e', 'trace=open,openat,creat', '-o', traceFile, process.execPath, BIN, ...args], { cwd: ROOT, env: { ...process.env, ...env } });
    let stdout = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.on('error', reject);
    child.on('close', async () => {
      const trace = await fs.readFile(traceFile, 'utf8');
      const opens = [...trace.matchAll(/open(?:at)?\((?:[^,]+, )?"([^"]+)", ([A-Z_|]+)/g)].map((m) => ({ file: m[1]!, flags: m[2]! }));
      resolve({ json: JSON.parse(stdout.trim().split('\n').at(-1)!) as Record<string, unknown>, opens });
    });
  });
}

/**
 * The paths under `dirs` a traced run opened for writing, but for the agents' lock files
 * (`$ALF_HOME/.alf/locks/*.lock`, lib/sync/agent-lock.ts): a sync opens its lock read-write to hold
 * it and writes nothing to it (`lockFilesUnwritten` checks that they are all empty).
 */
export function opensForWriting(opens: { file: string; flags: string }[], dirs: string[], alfHome: string): { file: string; flags: string }[] {
  const locks = path.join(alfHome, '.alf', 'locks') + path.sep;
  const isLock = (file: string) => file.startsWith(locks) && !file.slice(locks.length).includes(path.sep) && file.endsWith('.lock');
  return opens.filter((o) => /O_WRONLY|O_RDWR|O_CREAT/.test(o.flags) && dirs.some((dir) => o.file.startsWith(dir)) && !isLock(o.file));
}

/** The lock directory's files: each an empty `.lock` (no journal, nothing written). */
export async function lockFilesUnwritten(alfHome: string): Promise<{ name: string; size: number }[]> {
  const dir = path.join(alfHome, '.alf', 'locks');
  const names = (await fs.readdir(dir)).sort();
  return Promise.all(names.map(async (name) => ({ name, size: (await fs.stat(path.join(dir, name))).size })));
}
