import type { Command } from 'commander';
import { resolveServeSettings, type ServeFlags } from '@/lib/server/serve-options';
import { CliError } from '../output';
import { cliStorageConfig, type StorageFlags } from '../storage';
import { checkBeforeServing, describeServed, scaleOutBackend, serveUntilStopped } from './serving';

/** Flags of `lineage serve`, with the scale-out backend's two URLs. */
type ServeCommandFlags = ServeFlags & StorageFlags;

/**
 * `lineage serve [--port P] [--host H] [--data DIR] [--no-ui] [--auth required] [--allowed-hosts …] [--public-url …] [--trust-proxy …]`: the ALF protocol and
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
    .option('--trust-proxy <addresses>', 'comma-separated reverse-proxy addresses or CIDR ranges whose X-Forwarded-For names the client (sign-in rate limit; default: $LINEAGE_TRUST_PROXY, none)')
    .option('--database-url <url>', 'postgres://… : the scale-out backend\'s PostgreSQL (default: $LINEAGE_DATABASE_URL; needs --blob-url and $LINEAGE_SECRET)')
    .option('--blob-url <url>', 's3://bucket[/prefix] : the scale-out backend\'s blobs (default: $LINEAGE_BLOB_URL; AWS_* settings as the AWS SDK reads them)')
    .action(async (flags: ServeCommandFlags) => {
      let settings;
      try {
        settings = resolveServeSettings(flags);
      } catch (err) {
        throw new CliError('invalid_argument', (err as Error).message, 'run `lineage serve --help` for the options');
      }
      // Nothing set: the embedded data directory (the server opens it, signing with its `server-secret`
      // file, as always); both URLs: PostgreSQL + S3 through the composition root, signing with LINEAGE_SECRET.
      // The embedded data directory is checked here (settings.dataDir is the same directory).
      const config = await cliStorageConfig({ data: flags.data, databaseUrl: flags.databaseUrl, blobUrl: flags.blobUrl }, 'serve');
      await checkBeforeServing(settings, config.backend === 'embedded' ? settings.dataDir : null, 'serve');
      const backend = config.backend === 'scale-out' ? await scaleOutBackend(config) : undefined;
      const target = describeServed(config.backend === 'embedded' ? { backend: 'embedded', dataDir: settings.dataDir } : config);
      await serveUntilStopped(settings, (url) => `lineage serve: listening on ${url} (${target}${settings.ui ? '' : ', protocol only'})`, backend);
    });
}
