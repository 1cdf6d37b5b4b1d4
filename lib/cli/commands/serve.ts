import type { Command } from 'commander';
import { resolveServeSettings, type ServeFlags } from '@/lib/server/serve-options';
import { openStorage, StorageConfigError, storageConfigFrom, type StorageConfig } from '@/lib/storage/config';
import { storageFor } from '@/lib/storage/open';
import { CliError } from '../output';
import { serveUntilStopped, type ServedBackend } from './serving';

/** Flags of `lineage serve`, with the scale-out backend's two URLs. */
type ServeCommandFlags = ServeFlags & { databaseUrl?: string; blobUrl?: string };

/**
 * The backend the settings name: nothing set = the embedded data directory (the server opens it,
 * signing with its `server-secret` file, as always); both URLs = PostgreSQL + S3 through the
 * composition root, signing with `LINEAGE_SECRET` so every process accepts the others' URLs and sessions.
 */
async function servedBackend(flags: ServeCommandFlags): Promise<{ config: StorageConfig; backend: ServedBackend | undefined }> {
  let config: StorageConfig;
  try {
    config = storageConfigFrom(process.env, { data: flags.data, databaseUrl: flags.databaseUrl, blobUrl: flags.blobUrl });
  } catch (err) {
    if (err instanceof StorageConfigError) throw new CliError('invalid_argument', err.message, 'see `lineage serve --help` and the README section "Outgrowing one machine"');
    throw err;
  }
  if (config.backend === 'embedded') return { config, backend: undefined };
  const scaleOut = config;
  const key = `${scaleOut.databaseUrl}|${scaleOut.blobs.bucket}/${scaleOut.blobs.prefix}`;
  const storage = await storageFor({ backend: 'scale-out', key, open: () => openStorage(scaleOut) });
  return { config, backend: { storage, secret: scaleOut.secret } };
}

function describeTarget(config: StorageConfig, dataDir: string): string {
  if (config.backend === 'embedded') return `data: ${dataDir}`;
  const where = new URL(config.databaseUrl);
  return `database: ${where.host}${where.pathname}, blobs: s3://${config.blobs.bucket}${config.blobs.prefix ? `/${config.blobs.prefix}` : ''}`;
}

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
    .option('--database-url <url>', 'postgres://… : the scale-out backend\'s PostgreSQL (default: $LINEAGE_DATABASE_URL; needs --blob-url and $LINEAGE_SECRET)')
    .option('--blob-url <url>', 's3://bucket[/prefix] : the scale-out backend\'s blobs (default: $LINEAGE_BLOB_URL; AWS_* settings as the AWS SDK reads them)')
    .action(async (flags: ServeCommandFlags) => {
      let settings;
      try {
        settings = resolveServeSettings(flags);
      } catch (err) {
        throw new CliError('invalid_argument', (err as Error).message);
      }
      const { config, backend } = await servedBackend(flags);
      const target = describeTarget(config, settings.dataDir);
      await serveUntilStopped(settings, (url) => `lineage serve: listening on ${url} (${target}${settings.ui ? '' : ', protocol only'})`, backend);
    });
}
