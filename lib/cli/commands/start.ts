import type { Command } from 'commander';
import { systemClock } from '@/lib/core/clock';
import { defaultDemoToday } from '@/lib/demo/clock';
import { seedDemo } from '@/lib/demo/seed';
import { resolveServeSettings } from '@/lib/server/serve-options';
import { CliError, progress } from '../output';
import { cliStorage } from '../storage';
import { serveUntilStopped } from './serving';

/**
 * `npm start`: prepare the data directory (migrations), seed the demo fleet when it is empty,
 * build the dashboard when no production build exists, and serve it until interrupted.
 * A second start reuses all of it.
 */
export function registerStartCommand(program: Command): void {
  program
    .command('start')
    .description('prepare the data directory, seed the demo when empty, and serve the dashboard')
    .option('--port <port>', 'port (default: $PORT or 3000)')
    .option('--host <host>', 'address to bind (default: 127.0.0.1)')
    .option('--data <dir>', 'data directory (default: $LINEAGE_DATA or ./data)')
    .option('--no-demo', 'do not seed the demo fleet into an empty data directory')
    .action(async (flags: { port?: string; host?: string; data?: string; demo?: boolean }) => {
      let settings;
      try {
        settings = resolveServeSettings({ port: flags.port, host: flags.host, data: flags.data, ui: true });
      } catch (err) {
        throw new CliError('invalid_argument', (err as Error).message);
      }
      const storage = await cliStorage(settings.dataDir);
      if (flags.demo !== false && (await storage.listAgents({})).length === 0) {
        progress(`lineage start: ${settings.dataDir} is empty, seeding the demo fleet (about four weeks of syncs)…`);
        await seedDemo({ dataDir: settings.dataDir, today: defaultDemoToday(systemClock()), log: () => {} });
      }
      await serveUntilStopped(settings, (url) => `\n  ALF Lineage is running at ${url}\n  data: ${settings.dataDir}\n  stop with Ctrl+C\n`);
    });
}
