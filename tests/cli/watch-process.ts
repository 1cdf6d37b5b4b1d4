/**
 * `lineage watch` as a child process for the tests (the package's bin): its stdout's JSON lines,
 * its stderr, and a wait for what it writes. Each test's watches are killed after it.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { afterEach } from 'vitest';

const ROOT = path.resolve(__dirname, '../..');
const BIN = path.join(ROOT, 'bin', 'lineage.mjs');

export interface Watch {
  child: ChildProcess;
  /** Its stdout's lines so far, parsed (one per sync it ran). */
  outputs(): Record<string, unknown>[];
  stderr(): string;
  /** Resolves once `test` holds of its output (checked as lines come). */
  until(test: (w: Watch) => boolean, what: string): Promise<void>;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

const watches: Watch[] = [];
afterEach(() => {
  for (const w of watches.splice(0)) if (w.child.exitCode === null && w.child.signalCode === null) w.child.kill('SIGKILL');
});

export function startWatch(args: string[], env: Record<string, string>): Watch {
  const child = spawn(process.execPath, [BIN, 'watch', ...args], { cwd: ROOT, env: { ...process.env, ...env } });
  let stdout = '';
  let stderr = '';
  const waiters: (() => void)[] = [];
  const poke = () => waiters.forEach((f) => f());
  child.stdout!.on('data', (d: Buffer) => ((stdout += d.toString()), poke()));
  child.stderr!.on('data', (d: Buffer) => ((stderr += d.toString()), poke()));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.on('close', (code, signal) => (poke(), resolve({ code, signal }))));
  const watch: Watch = {
    child, exited,
    outputs: () => stdout.split('\n').filter(Boolean).map((l) => JSON.parse(l) as Record<string, unknown>),
    stderr: () => stderr,
    until: (test, what) => new Promise((resolve, reject) => {
      const check = () => {
        if (test(watch)) resolve();
        else if (child.exitCode !== null || child.signalCode !== null) reject(new Error(`the watch ended before ${what}:\n${stderr}`));
      };
      waiters.push(check);
      check();
    }),
  };
  watches.push(watch);
  return watch;
}

