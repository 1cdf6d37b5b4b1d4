/**
 * `npx tsx bench/sync-pack-cpu.ts [--syncs 70] [--cli-syncs 70] [--packing background|inline] [--out FILE]`:
 * where a packing group's cost lands. The 50k-record store (500 files × 100 sections) synced once,
 * then `--syncs` 1% edits synced in this process (`syncWorkspace` into a local data directory), then
 * `--cli-syncs` more as `lineage sync` processes (the package's bin, under `/usr/bin/time`). Each
 * sync's CPU (user + system) and wall time; the background packer's runs from its own log
 * (`LINEAGE_PACKER_LOG`: a line per hold of its lock, with its CPU since the line before, the first
 * from its start-up). `--packing inline` runs the pass inside the sync that completes a group
 * instead (the in-process syncs only: the CLI has no such option), for the comparison. A measurement, not a bench row: CPU time, which other processes on
 * the machine disturb far less than wall time. Prints a JSON summary on stdout.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { waitForPacker } from '@/lib/ledger/background-packer';
import { localTarget, type LocalPacking } from '@/lib/sync/local-target';
import { syncWorkspace } from '@/lib/sync/sync';
import { largeWorkspace } from './history/large-store';
import { BENCH_AGENT_ID } from './history/replay';
import { median } from './lib/stats';

const argv = process.argv.slice(2);
const value = (name: string) => { const i = argv.indexOf(`--${name}`); return i < 0 ? undefined : argv[i + 1]; };
const syncs = Number(value('syncs') ?? 70);
const cliSyncs = Number(value('cli-syncs') ?? 70);
const packing = (value('packing') ?? 'background') as LocalPacking;
const log = (line: string) => process.stderr.write(`${line}\n`);

interface SyncCost { seq: number; cpuMs: number; wallMs: number }
interface PackerRun { pid: number; packed: number; considered: number; ms: number; cpu_user_ms: number; cpu_system_ms: number }

function summary(costs: SyncCost[]) {
  const cpu = costs.map((c) => c.cpuMs);
  const worst = costs.reduce((a, b) => (b.cpuMs > a.cpuMs ? b : a));
  return {
    syncs: costs.length, cpu_median_ms: Math.round(median(cpu)), cpu_max_ms: Math.round(worst.cpuMs), cpu_max_at_seq: worst.seq,
    cpu_total_ms: Math.round(cpu.reduce((a, b) => a + b, 0)), wall_median_ms: Math.round(median(costs.map((c) => c.wallMs))),
    at_group_boundary: costs.filter((c) => c.seq % 64 === 0).map((c) => ({ seq: c.seq, cpu_ms: Math.round(c.cpuMs), wall_ms: Math.round(c.wallMs) })),
  };
}

async function main(): Promise<void> {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'alf-sync-pack-cpu-'));
  const packerLog = path.join(root, 'packer.log');
  process.env.LINEAGE_PACKER_LOG = packerLog;
  try {
    const dataDir = path.join(root, 'data');
    const home = path.join(root, 'home');
    let now = Date.parse('2026-06-01T00:00:00Z');
    const clock = () => new Date(now);
    const target = localTarget(dataDir, clock, { packing });
    const { workspace, edit } = largeWorkspace({ root, agentId: BENCH_AGENT_ID, now: () => now });
    const sync = () => syncWorkspace({ runtime: 'openclaw', workspace, target, alfHome: path.join(home, '.alf'), clock });
    await sync();
    const inProcess: SyncCost[] = [];
    for (let i = 0; i < syncs; i++) {
      now += 3600_000;
      edit(500);
      const cpu0 = process.cpuUsage();
      const t0 = performance.now();
      const out = await sync();
      const cpu = process.cpuUsage(cpu0);
      inProcess.push({ seq: out.sequence, cpuMs: (cpu.user + cpu.system) / 1000, wallMs: performance.now() - t0 });
      log(`in-process sync ${out.sequence}: CPU ${inProcess.at(-1)!.cpuMs.toFixed(0)} ms, wall ${inProcess.at(-1)!.wallMs.toFixed(0)} ms`);
    }
    await waitForPacker(dataDir, 600_000);
    const bin = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../bin/lineage.cjs');
    const cli: SyncCost[] = [];
    const timeFile = path.join(root, 'time.txt');
    for (let i = 0; i < cliSyncs; i++) {
      now += 3600_000;
      edit(500);
      const stdout = execFileSync('/usr/bin/time', ['-f', '%U %S %e', '-o', timeFile, process.execPath, bin, 'sync', '-r', 'openclaw', '-w', workspace, '--data', dataDir], {
        env: { ...process.env, ALF_HOME: home }, stdio: ['ignore', 'pipe', 'ignore'],
      }).toString();
      const seq = (JSON.parse(stdout.trim().split('\n').at(-1)!) as { sequence: number }).sequence;
      const [user, sys, wall] = fs.readFileSync(timeFile, 'utf8').trim().split('\n').at(-1)!.split(' ').map(Number) as [number, number, number];
      cli.push({ seq, cpuMs: (user + sys) * 1000, wallMs: wall * 1000 });
      log(`lineage sync ${seq}: CPU ${cli.at(-1)!.cpuMs.toFixed(0)} ms, wall ${cli.at(-1)!.wallMs.toFixed(0)} ms`);
    }
    await waitForPacker(dataDir, 600_000);
    const packers = fs.existsSync(packerLog)
      ? fs.readFileSync(packerLog, 'utf8').trim().split('\n').map((line) => JSON.parse(line) as PackerRun) : [];
    const result = {
      packing, load_at_end: os.loadavg().map((l) => l.toFixed(2)).join(' '),
      in_process: summary(inProcess), cli: cli.length > 0 ? summary(cli) : null,
      packer_runs: packers.map((p) => ({ packed: p.packed, considered: p.considered, cpu_ms: p.cpu_user_ms + p.cpu_system_ms, wall_ms: p.ms })),
      per_sync: { in_process: inProcess.map((c) => Math.round(c.cpuMs)), cli: cli.map((c) => Math.round(c.cpuMs)) },
    };
    const text = JSON.stringify(result);
    if (value('out')) fs.writeFileSync(value('out')!, `${text}\n`);
    process.stdout.write(`${text}\n`);
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
}

main().catch((error: Error) => {
  log(error.stack ?? error.message);
  process.exit(1);
});
