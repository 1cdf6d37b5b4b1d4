import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Command } from 'commander';
import { systemClock } from '@/lib/core/clock';
import { defaultDemoToday, parseDay } from '@/lib/demo/clock';
import { seedDemo, seedDemoInto, type SeedDemoResult } from '@/lib/demo/seed';
import type { LineageStorage } from '@/lib/storage/types';
import { CliError, printJson, progress } from '../output';
import { cliStorageConfig, openScaleOut, storageOptions, type StorageFlags } from '../storage';

/**
 * The demo fleet into a storage that keeps nothing on local disk: the scripted workspaces and the
 * sync client's state go to a temporary directory, removed afterwards.
 */
export async function seedScaleOutDemo(storage: LineageStorage, today: Date, log: (line: string) => void): Promise<SeedDemoResult> {
  const workDir = await mkdtemp(path.join(os.tmpdir(), 'lineage-demo-'));
  try {
    return await seedDemoInto({ storage, workDir: path.join(workDir, 'demo'), today, log });
  } finally {
    await rm(workDir, { recursive: true, force: true });
  }
}

/**
 * `lineage demo [--data DIR | --database-url … --blob-url …] [--today YYYY-MM-DD]`: seeds an empty
 * data directory (or an empty scale-out storage) with the demo fleet (four agents, three runtimes,
 * four weeks ending `--today`) through the real sync pipeline. A storage that already has agents is
 * left alone (`seeded: false`).
 */
export function registerDemoCommand(program: Command): void {
  storageOptions(program
    .command('demo')
    .description('seed an empty data directory with a demo fleet synced through the real pipeline')
    .option('--today <YYYY-MM-DD>', 'last day of the four scripted weeks (default: the current UTC date; the day before until 08:00 UTC)'))
    .action(async (opts: StorageFlags & { today?: string }) => {
      const today = parseToday(opts.today);
      const config = await cliStorageConfig(opts, 'demo');
      const result = config.backend === 'scale-out'
        ? await seedScaleOutDemo(await openScaleOut(config), today, progress)
        : await seedDemo({ dataDir: config.dataDir, today, log: progress });
      printJson(result);
    });
}

/**
 * The first day `--today` may be. Years before 100 are read as written now (lib/demo/clock.ts
 * `utcDay`; the calendar read them as 19xx: 0000-01-01 seeded 1899-12), but the scripted fleet is
 * not made for days before the Unix epoch: the Hermes sessions it scripts are named from seconds
 * since it, and four weeks ending early in 0000 would begin in year -1, which no archive may hold.
 */
const FIRST_TODAY = '1970-01-01';

function parseToday(text: string | undefined): Date {
  if (text === undefined) return defaultDemoToday(systemClock());
  let day: Date;
  try {
    day = parseDay(text);
  } catch (error) {
    throw new CliError('invalid_argument', `--today: ${(error as Error).message}`, 'e.g. --today 2026-05-10');
  }
  if (text < FIRST_TODAY) throw new CliError('invalid_argument', `--today must be ${FIRST_TODAY} or later, got "${text}"`, 'e.g. --today 2026-05-10');
  return day;
}
