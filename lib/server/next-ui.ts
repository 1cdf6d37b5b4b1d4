import { spawn } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import path from 'node:path';
import { packageRoot } from '@/lib/package-root';

/** The Node-style request handler of the Next.js dashboard. */
export type NodeHandler = (req: IncomingMessage, res: ServerResponse) => Promise<void>;

/** The repository root (where `next.config.mjs` and `.next/` live). */
export function repoRoot(): string {
  return packageRoot();
}

/** Sources the dashboard build depends on; a change in any of them makes the build stale. */
const BUILD_INPUTS = ['app', 'components', 'lib', 'db', 'public', 'next.config.mjs', 'package-lock.json', 'postcss.config.mjs', 'tsconfig.json'];

function newestMtime(entry: string): number {
  let stat;
  try {
    stat = statSync(entry);
  } catch {
    return 0;
  }
  if (!stat.isDirectory()) return stat.mtimeMs;
  let newest = stat.mtimeMs;
  for (const child of readdirSync(entry)) {
    if (child === 'node_modules' || child.startsWith('.')) continue;
    newest = Math.max(newest, newestMtime(path.join(entry, child)));
  }
  return newest;
}

/** Why a build is needed, or null when the existing production build is up to date. */
export function buildNeeded(dir: string): string | null {
  const buildId = path.join(dir, '.next', 'BUILD_ID');
  if (!existsSync(buildId)) return 'no production build of the dashboard found';
  const builtAt = statSync(buildId).mtimeMs;
  const changed = BUILD_INPUTS.find((input) => newestMtime(path.join(dir, input)) > builtAt);
  return changed ? `${changed} changed since the last dashboard build` : null;
}

/** Runs `next build` when there is no up-to-date production build; progress goes to stderr. */
export async function ensureNextBuild(dir: string, log: (line: string) => void): Promise<void> {
  const reason = buildNeeded(dir);
  if (!reason) return;
  log(`lineage serve: ${reason}, running \`next build\`…`);
  const nextBin = path.join(dir, 'node_modules', 'next', 'dist', 'bin', 'next');
  await new Promise<void>((resolve, reject) => {
    // A self-hosted audit tool phones nowhere: Next's telemetry stays off.
    const child = spawn(process.execPath, [nextBin, 'build'], { cwd: dir, stdio: ['ignore', process.stderr, process.stderr], env: { ...process.env, NEXT_TELEMETRY_DISABLED: '1' } });
    child.on('error', reject);
    child.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`next build failed with exit code ${code}`))));
  });
  log('lineage serve: dashboard build finished');
}

/** Prepares the Next.js app once (production mode) and returns its request handler. */
export async function loadNextHandler(dir: string): Promise<NodeHandler> {
  process.env.NEXT_TELEMETRY_DISABLED = '1';
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
