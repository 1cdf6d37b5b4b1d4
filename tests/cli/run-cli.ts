import { spawn } from 'node:child_process';
import path from 'node:path';

const ROOT = path.resolve(__dirname, '../..');
/** The package's bin: the CLI from its JavaScript bundle, as `lineage` and `npm run lineage` run it. */
const BIN = path.join(ROOT, 'bin', 'lineage.mjs');

export interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
  /** stdout parsed as the single JSON object the CLI promises. */
  json: Record<string, unknown>;
}

/** Runs `lineage <args>` as a child process and gives what it wrote as it is (`--version`, help). */
export function runCliText(args: string[]): Promise<Omit<CliRun, 'json'>> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], { cwd: ROOT, env: process.env });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** Runs `lineage <args>` as a child process, the way a user or a script would (from `cwd`, the package's root unless given). */
export function runCli(args: string[], env: Record<string, string> = {}, cwd = ROOT): Promise<CliRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], { cwd, env: { ...process.env, ...env } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => {
      const lines = stdout.trim().split('\n').filter(Boolean);
      if (lines.length !== 1) return reject(new Error(`expected exactly one JSON line on stdout, got ${lines.length}:\n${stdout}\nstderr:\n${stderr}`));
      resolve({ code, stdout, stderr, json: JSON.parse(lines[0]!) as Record<string, unknown> });
    });
  });
}
