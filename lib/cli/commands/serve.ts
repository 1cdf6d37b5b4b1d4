import type { Command } from 'commander';
import { resolveServeSettings, type ServeFlags } from '@/lib/server/serve-options';
import { CliError } from '../output';
import { serveUntilStopped } from './serving';

/**
 * `lineage serve [--port P] [--host H] [--data DIR] [--no-ui] [--auth required] [--allowed-hosts …] [--public-url …]`: the ALF protocol and
 * (unless `--no-ui` / `LINEAGE_NO_UI=1`) the dashboard, until SIGINT/SIGTERM.
 */
export function registerServeCommand(program: Command): void {
  program
    .command('serve')
    .description('serve the ALF sync protocol and the history dashboard')
    .option('--port <port>', 'port to listen on (default: $PORT or 3000; 0 = any free port)')
    .option('--host <host>', 'address to bind (default: 127.0.0.1)')
    .option('--data <dir>', 'data directory (default: $LINEAGE_DATA or ./data)')
    .option('--no-ui', 'serve only the protocol, without building or serving the dashboard')
    .option('--auth <mode>', '"required": dashboard sign-in even on loopback (default: $LINEAGE_AUTH; any non-loopback --host always requires it)')
    .option('--allowed-hosts <names>', 'comma-separated host names this server answers to besides loopback and --host (default: $LINEAGE_ALLOWED_HOSTS)')
    .option('--public-url <url>', 'origin of the signed URLs it hands out (default: $LINEAGE_PUBLIC_URL, else the bind address)')
    .action(async (flags: ServeFlags) => {
      let settings;
      try {
        settings = resolveServeSettings(flags);
      } catch (err) {
        throw new CliError('invalid_argument', (err as Error).message);
      }
      await serveUntilStopped(settings, (url) => `lineage serve: listening on ${url} (data: ${settings.dataDir}${settings.ui ? '' : ', protocol only'})`);
    });
}
