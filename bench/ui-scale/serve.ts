/**
 * A production `lineage serve` of a data directory for the bench, started the way the e2e fixtures
 * start theirs (e2e/global-setup.ts): the CLI's `serve`, which runs `next build` first when the
 * build is missing or stale, with the request timing log on. Stopped by its own process group.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { packageRoot } from '@/lib/package-root';
import { freePort } from '../../e2e/free-port';

export interface BenchServer { url: string; timingLog: string; stop(): Promise<void> }

export async function startBenchServer(args: { dataDir: string; timingLog: string; log: (line: string) => void; cpus?: string }): Promise<BenchServer> {
  const port = await freePort();
  const root = packageRoot();
  const command = ['npx', 'tsx', 'lib/cli/main.ts', 'serve', '--port', String(port), '--data', args.dataDir];
  // Pinned with `taskset -c`, which every process of the server inherits (see pin.ts).
  const [file, ...rest] = args.cpus === undefined ? command : ['/usr/bin/taskset', '-c', args.cpus, ...command];
  const child: ChildProcess = spawn(file!, rest, {
    cwd: root,
    env: { ...process.env, LINEAGE_REQUEST_TIMING_LOG: args.timingLog, ALF_HOME: path.join(args.dataDir, '..', 'alf-home') },
    stdio: ['ignore', 'ignore', 'inherit'],
    detached: true,
  });
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 900_000; // a first run builds the dashboard
  for (;;) {
    if (child.exitCode !== null) throw new Error(`lineage serve exited with code ${child.exitCode}`);
    if (Date.now() > deadline) throw new Error(`lineage serve did not answer at ${url}`);
    try {
      if ((await fetch(`${url}/api/agents`)).ok) break;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 500));
  }
  args.log(`ui-scale: lineage serve at ${url} (pid ${child.pid})`);
  return {
    url,
    timingLog: args.timingLog,
    stop: async () => {
      if (child.exitCode !== null) return;
      const exited = new Promise((r) => child.once('exit', r));
      process.kill(-child.pid!, 'SIGTERM');
      await Promise.race([exited, new Promise((r) => setTimeout(r, 10_000))]);
    },
  };
}
