import type { Command } from 'commander';
import { systemClock } from '@/lib/core/clock';
import { defaultDemoToday, parseDay } from '@/lib/demo/clock';
import { seedDemo } from '@/lib/demo/seed';
import { resolveDataDir } from '@/lib/ledger';
import { CliError, printJson, progress } from '../output';

/**
 * `lineage demo [--data DIR] [--today YYYY-MM-DD]`: seeds an empty data directory with the demo
 * fleet (four agents, three runtimes, four weeks ending `--today`) through the real sync pipeline.
 * A data directory that already has agents is left alone (`seeded: false`).
 */
export function registerDemoCommand(program: Command): void {
  program
    .command('demo')
    .description('seed an empty data directory with a demo fleet synced through the real pipeline')
    .option('--data <dir>', 'data directory (default: $LINEAGE_DATA or ./data)')
    .option('--today <YYYY-MM-DD>', 'last day of the four scripted weeks (default: the current UTC date; the day before until 08:00 UTC)')
    .action(async (opts: { data?: string; today?: string }) => {
      const result = await seedDemo({ dataDir: resolveDataDir(opts.data), today: parseToday(opts.today), log: progress });
      printJson(result);
    });
}

function parseToday(text: string | undefined): Date {
  if (text === undefined) return defaultDemoToday(systemClock());
  try {
    return parseDay(text);
  } catch (error) {
    throw new CliError('invalid_argument', `--today: ${(error as Error).message}`, 'e.g. --today 2026-05-10');
  }
}
