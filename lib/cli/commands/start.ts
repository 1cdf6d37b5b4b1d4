import type { Command } from 'commander';
import { systemClock } from '@/lib/core/clock';
import { defaultDemoToday } from '@/lib/demo/clock';
import { seedDemo } from '@/lib/demo/seed';
import { resolveServeSettings } from '@/lib/server/serve-options';
import { storageFor } from '@/lib/storage/open';
import { CliError, progress } from '../output';
import { cliStorageConfig, storageOptions, type StorageFlags } from '../storage';
import { seedScaleOutDemo } from './demo';
import { checkBeforeServing, describeServed, scaleOutBackend, serveUntilStopped, type ServedBackend } from './serving';

/**
 * `npm start`: prepare the storage (migrations), seed the demo when it is empty, build the
 * dashboard when no production build exists, and serve it until interrupted. A second start reuses
 * all of it. On the scale-out settings (`--database-url`/`--blob-url` or `LINEAGE_*`) it does the
 * same on PostgreSQL + S3: seeds an empty scale-out storage and serves it like `lineage serve`.
 */
export function registerStartCommand(program: Command): void {
  storageOptions(program
    .command('start')
    .description('prepare the storage, seed the demo when empty, and serve the dashboard')
    .option('--port <port>', 'port (default: $PORT or 3000)')
    .option('--host <host>', 'address to bind (default: 127.0.0.1)')
    .option('--no-demo', 'do not seed the demo fleet into an empty storage'))
    .action(async (flags: StorageFlags & { port?: string; host?: string; demo?: boolean }) => {
      let settings;
      try {
        settings = resolveServeSettings({ port: flags.port, host: flags.host, data: flags.data, ui: true });
      } catch (err) {
        throw new CliError('invalid_argument', (err as Error).message, 'run `lineage start --help` for the options');
      }
      const config = await cliStorageConfig(flags, 'start');
      await checkBeforeServing(settings, config.backend === 'embedded' ? settings.dataDir : null, 'start');
      const backend: ServedBackend | undefined = config.backend === 'scale-out' ? await scaleOutBackend(config) : undefined;
      const where = describeServed(config.backend === 'embedded' ? { backend: 'embedded', dataDir: settings.dataDir } : config);
      const storage = backend?.storage ?? (await storageFor({ backend: 'embedded', dataDir: settings.dataDir }));
      if (flags.demo !== false && (await storage.listAgents({})).length === 0) {
        progress(`lineage start: ${backend ? 'the scale-out storage' : settings.dataDir} is empty, seeding the demo fleet (about four weeks of syncs)…`);
        const today = defaultDemoToday(systemClock());
        if (backend) await seedScaleOutDemo(backend.storage, today, () => {});
        else await seedDemo({ dataDir: settings.dataDir, today, log: () => {} });
      }
      await serveUntilStopped(settings, (url) => `\n  ALF Lineage is running at ${url}\n  ${where}\n  stop with Ctrl+C\n`, backend);
    });
}
