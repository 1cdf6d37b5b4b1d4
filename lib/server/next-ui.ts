import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** The Node-style request handler of the Next.js dashboard. */
export type NodeHandler = (req: IncomingMessage, res: ServerResponse) => Promise<void>;

/** The repository root (where `next.config.mjs` and `.next/` live). */
export function repoRoot(): string {
  return path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
}

/** Runs `next build` when there is no production build yet; progress goes to stderr. */
export async function ensureNextBuild(dir: string, log: (line: string) => void): Promise<void> {
  if (existsSync(path.join(dir, '.next', 'BUILD_ID'))) return;
  log('lineage serve: no production build of the dashboard found, running `next build` (once)…');
  const nextBin = path.join(dir, 'node_modules', 'next', 'dist', 'bin', 'next');
  await new Promise<void>((resolve, reject) => {
    const child = spawn(process.execPath, [nextBin, 'build'], { cwd: dir, stdio: ['ignore', process.stderr, process.stderr] });
    child.on('error', reject);
    child.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`next build failed with exit code ${code}`))));
  });
  log('lineage serve: dashboard build finished');
}

/** Prepares the Next.js app once (production mode) and returns its request handler. */
export async function loadNextHandler(dir: string): Promise<NodeHandler> {
  const mod = (await import('next')) as unknown as { default: (options: { dev: boolean; dir: string }) => NextApp };
  const app = mod.default({ dev: false, dir });
  await app.prepare();
  const handle = app.getRequestHandler();
  return (req, res) => handle(req, res);
}

interface NextApp {
  prepare(): Promise<void>;
  getRequestHandler(): (req: IncomingMessage, res: ServerResponse) => Promise<void>;
}
