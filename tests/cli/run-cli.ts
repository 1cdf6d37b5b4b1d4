import { spawn } from 'node:child_process';
import path from 'node:path';

const ROOT = path.resolve(__dirname, '../..');
/** The package's bin: the CLI from its JavaScript bundle, as `lineage` and `npm run lineage` run it. */
const BIN = path.join(ROOT, 'bin', 'lineage.cjs');

export interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
  /** stdout parsed as the single JSON object the CLI promises. */
  json: Record<string, unknown>;
}

/** What a child process wrote, once it has closed. */
function collected(command: string, args: string[], options: { cwd: string; env: NodeJS.ProcessEnv }): Promise<Omit<CliRun, 'json'>> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, options);
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** Runs `lineage <args>` as a child process and gives what it wrote as it is (`--version`, help). */
export function runCliText(args: string[]): Promise<Omit<CliRun, 'json'>> {
  return collected(process.execPath, [BIN, ...args], { cwd: ROOT, env: process.env });
}

/**
 * Runs `lineage <args>` as a child process, the way a user or a script would (from `cwd`, the package's root unless given).
 * `unprivileged`: in a user namespace of its own (`unshare -r`), root there but not over this machine's network — as an
 * ordinary user is (the tests run as root): a port below 1024 is refused to it.
 */
export async function runCli(args: string[], env: Record<string, string> = {}, cwd = ROOT, options: { unprivileged?: boolean } = {}): Promise<CliRun> {
  const [command, argv] = options.unprivileged ? ['unshare', ['-r', process.execPath, BIN, ...args]] : [process.execPath, [BIN, ...args]];
  const { code, stdout, stderr } = await collected(command, argv, { cwd, env: { ...process.env, ...env } });
  const lines = stdout.trim().split('\n').filter(Boolean);
  if (lines.length !== 1) throw new Error(`expected exactly one JSON line on stdout, got ${lines.length}:\n${stdout}\nstderr:\n${stderr}`);
  return { code, stdout, stderr, json: JSON.parse(lines[0]!) as Record<string, unknown> };
}

/**
 * Runs a shell script in its own user and mount namespace (`unshare -rm`), where it may mount a
 * tmpfs: a real full disk for the real bin (the full-disk sync and restore tests).
 */
export function inMountNamespace(script: string, env: Record<string, string>): Promise<Omit<CliRun, 'json'>> {
  return collected('unshare', ['-rm', 'sh', '-euc', script], { cwd: ROOT, env: { ...process.env, ...env } });
}
