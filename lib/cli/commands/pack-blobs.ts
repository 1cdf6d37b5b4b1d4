import fs from 'node:fs';
import os from 'node:os';
import type { Command } from 'commander';
import { resolveDataDir } from '@/lib/ledger/data-dir';
import { runPacker } from '@/lib/ledger/run-packer';
import { CliError, printJson } from '../output';
import { isDirectory } from '../parse-options';

/** The niceness the packer runs at (higher is lower priority; `LINEAGE_PACKER_NICE`, 0–19): a sync or a request never waits for it. */
const PACKER_NICENESS = 10;

/**
 * `lineage pack-blobs [--data DIR]` (hidden): the background packer a sync starts when it completes
 * a packing group (lib/ledger/background-packer.ts). Lowers its own priority, serves every pending
 * request, prints `{"ok":true,…}`. `LINEAGE_PACKER_LOG=<file>` appends one JSON line per hold of the
 * packer lock (one per run unless a request came as it let the lock go) with what it did and the
 * wall and CPU time it took since the line before (the first: since the process started), written
 * before the lock is let go: the benchmarks and tests read it once `waitForPacker` returns.
 */
export function registerPackBlobsCommand(program: Command): void {
  program
    .command('pack-blobs', { hidden: true })
    .description('pack the blobs that local syncs stored whole, in complete packing groups (run in the background by lineage sync)')
    .option('--data <dir>', 'data directory (default: $LINEAGE_DATA or ./data)')
    .action(async (opts: { data?: string }) => {
      lowerPriority();
      const started = Date.now();
      const log = process.env.LINEAGE_PACKER_LOG;
      let since = { at: started, cpu: { user: 0, system: 0 } };
      const times = () => {
        const cpu = process.cpuUsage();
        const now = Date.now();
        const took = { ms: now - since.at, cpu_user_ms: Math.round((cpu.user - since.cpu.user) / 1000), cpu_system_ms: Math.round((cpu.system - since.cpu.system) / 1000) };
        since = { at: now, cpu };
        return { at: new Date(now - took.ms).toISOString(), took };
      };
      const run = await runPacker({
        dataDir: existingDir(resolveDataDir(opts.data)),
        beforeRelease: log ? (hold) => {
          const { at, took } = times();
          fs.appendFileSync(log, `${JSON.stringify({ at, ok: true, ran: true, ...hold, pid: process.pid, nice: os.getPriority(), ...took })}\n`);
        } : undefined,
      });
      const cpu = process.cpuUsage();
      printJson({ ok: true, ...run, pid: process.pid, nice: os.getPriority(), ms: Date.now() - started, cpu_user_ms: Math.round(cpu.user / 1000), cpu_system_ms: Math.round(cpu.system / 1000) });
    });
}

/** Never raises the priority: a packer started from a `nice`d process keeps the higher niceness. */
function lowerPriority(): void {
  const asked = Number(process.env.LINEAGE_PACKER_NICE ?? PACKER_NICENESS);
  const niceness = Number.isInteger(asked) ? Math.min(19, Math.max(0, asked)) : PACKER_NICENESS;
  try {
    if (os.getPriority() < niceness) os.setPriority(niceness);
  } catch {
    // not permitted here: run at the priority given
  }
}

/** A sync starts the packer on its own data directory: one that is not there is a mistyped `--data`, not one to make. */
function existingDir(dataDir: string): string {
  if (!isDirectory(dataDir)) {
    throw new CliError('data_not_found', `no data directory at ${dataDir}`, 'pass --data DIR (or set LINEAGE_DATA) to the directory lineage sync wrote');
  }
  return dataDir;
}
