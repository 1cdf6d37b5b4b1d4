import { spawn } from 'node:child_process';
import fs from 'node:fs/promises';
import path from 'node:path';

const ROOT = path.resolve(__dirname, '../..');
const BIN = path.join(ROOT, 'bin', 'lineage.mjs');

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
