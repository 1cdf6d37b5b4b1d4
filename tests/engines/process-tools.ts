/**
 * Small process and port helpers shared by the throwaway engines (PostgreSQL, radosgw) the
 * scale-out tests start: free loopback ports, commands that must succeed, daemons we own and stop.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';

/** A port nobody listens on at 127.0.0.1 right now. */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

async function portIsFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

/** `count` consecutive free ports (Ceph's messenger binds inside a range, not on port 0). */
export async function freePortRange(count: number): Promise<{ min: number; max: number }> {
  for (let attempt = 0; attempt < 50; attempt++) {
    const min = 20_000 + Math.floor(Math.random() * 40_000);
    const ports = Array.from({ length: count }, (_, i) => min + i);
    if ((await Promise.all(ports.map(portIsFree))).every(Boolean)) return { min, max: min + count - 1 };
  }
  throw new Error(`no ${count} consecutive free loopback ports found`);
}

/**
 * A fresh directory under the temp root, mode 755 with every ancestor traversable, because the
 * `postgres` system user must reach it (mkdtemp makes 0700 directories, the vitest temp root too).
 */
export function traversableTempDir(prefix: string): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  for (let current = dir; current !== path.dirname(current); current = path.dirname(current)) {
    const mode = fs.statSync(current).mode;
    if ((mode & 0o001) !== 0) break;
    fs.chmodSync(current, mode | 0o755);
  }
  return dir;
}

/** Runs a command to completion; rejects with its output when it exits non-zero. */
export async function run(command: string, args: string[], options: { cwd?: string; timeoutMs?: number; env?: NodeJS.ProcessEnv } = {}): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: options.cwd, env: options.env, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk) => { output += chunk; });
    child.stderr.on('data', (chunk) => { output += chunk; });
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 60_000);
    child.once('error', (error) => { clearTimeout(timer); reject(error); });
    child.once('close', (code, signal) => {
      clearTimeout(timer);
      if (code === 0) resolve(output);
      else reject(new Error(`${command} ${args.join(' ')} failed (${signal ?? code}):\n${output}`));
    });
  });
}

/** A long-running daemon in the foreground, owned by this process. */
export interface Daemon {
  readonly name: string;
  readonly child: ChildProcess;
  /** Resolves when it has exited (any reason). */
  readonly exited: Promise<void>;
}

export function startDaemon(name: string, command: string, args: string[], logFile: string): Daemon {
  const log = fs.openSync(logFile, 'a');
  const child = spawn(command, args, { stdio: ['ignore', log, log] });
  fs.closeSync(log);
  const exited = new Promise<void>((resolve) => {
    child.once('exit', () => resolve());
    child.once('error', () => resolve());
  });
  return { name, child, exited };
}

export function isRunning(daemon: Daemon): boolean {
  return daemon.child.exitCode === null && daemon.child.signalCode === null;
}

/** SIGTERM, then SIGKILL after `graceMs`: the engines are throwaway, nothing needs a clean stop. */
export async function stopDaemon(daemon: Daemon, graceMs = 1_500): Promise<void> {
  if (!isRunning(daemon)) return;
  daemon.child.kill('SIGTERM');
  const timer = setTimeout(() => daemon.child.kill('SIGKILL'), graceMs);
  await daemon.exited;
  clearTimeout(timer);
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Polls `probe` until it returns true; rejects after `timeoutMs` with `what` in the message. */
export async function waitFor(what: string, probe: () => Promise<boolean>, timeoutMs: number, everyMs = 250): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await probe().catch(() => false)) return;
    await sleep(everyMs);
  }
  throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
}

/**
 * A detached shell that waits for this process to end and then runs `cleanup` (kill the
 * engine's daemons, remove its directory): the engines are stopped by the run's teardown, but a
 * run killed outright (SIGKILL, an OOM) must not leave daemons holding memory and ports on a
 * shared machine. `cancel` ends the watchdog once a normal stop has done the work.
 */
export function startWatchdog(cleanup: string): { cancel(): void } {
  const script = `while kill -0 ${process.pid} 2>/dev/null; do sleep 1; done; ${cleanup}`;
  const child = spawn('sh', ['-c', script], { detached: true, stdio: 'ignore' });
  child.unref();
  return {
    cancel() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    },
  };
}
