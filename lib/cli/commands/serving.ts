import { isLoopbackAddress } from '@/lib/server/hosts';
import { createLineageServer, ServeRefused } from '@/lib/server/http-server';
import type { ServeSettings } from '@/lib/server/serve-options';
import { storageFor } from '@/lib/storage/open';
import { describeScaleOut } from '@/lib/storage/scale-out-requested';
import type { LineageStorage } from '@/lib/storage/types';
import { CliError, printJson, progress } from '../output';
import type { ScaleOutConfig } from '../storage';

/**
 * What `start` and `serve` share: the server is created (the dashboard built first when needed),
 * a banner goes to stderr and `{"ok":true,"url","data"}` to stdout, then it serves until SIGINT or
 * SIGTERM. Libraries that log with `console.log` (Next.js does, as it loads its config) are sent
 * to stderr for the process's life, so stdout carries that one JSON object and nothing else.
 */
/** A storage opened by the composition root, and the secret its URLs and sessions are signed with. */
export interface ServedBackend {
  storage: LineageStorage;
  secret: Buffer;
}

/**
 * The scale-out storage a serving process installs (opened once per process by the composition
 * root), signing URLs and sessions with `LINEAGE_SECRET` so every process accepts the others'.
 */
export async function scaleOutBackend(config: ScaleOutConfig): Promise<ServedBackend> {
  const { openStorage } = await import('@/lib/storage/config');
  const key = `${config.databaseUrl}|${config.blobs.bucket}/${config.blobs.prefix}`;
  return { storage: await storageFor({ backend: 'scale-out', key, open: () => openStorage(config) }), secret: config.secret };
}

/** Where a served storage is, for the banner: the data directory, or the database and bucket (no password). */
export function describeServed(config: { backend: 'embedded'; dataDir: string } | ScaleOutConfig): string {
  return config.backend === 'embedded' ? `data: ${config.dataDir}` : describeScaleOut(config.databaseUrl, config.blobs);
}

export async function serveUntilStopped(settings: ServeSettings, banner: (url: string) => string, backend?: ServedBackend): Promise<void> {
  consoleToStderr();
  let server;
  try {
    server = await createLineageServer({ ...settings, ...backend, log: progress });
  } catch (err) {
    if (err instanceof ServeRefused) throw new CliError('no_admin_key', err.message, err.hint);
    throw err;
  }
  progress(banner(server.url));
  if (!isLoopbackAddress(settings.host) && !settings.publicUrl) {
    progress(`lineage serve: signed download and upload URLs use ${server.url}; set LINEAGE_PUBLIC_URL (or --public-url) to the address clients reach`);
  }
  if (settings.auth === 'required' || !isLoopbackAddress(settings.host)) {
    progress('lineage serve: the dashboard asks for sign-in (/login with an API key); scripts send "Authorization: Bearer <key>" on /api/*');
  }
  printJson({ ok: true, url: server.url, data: settings.dataDir });
  await new Promise<void>((resolve) => {
    const stop = () => void server.close().then(resolve, resolve);
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  });
}

function consoleToStderr(): void {
  console.log = console.error;
  console.info = console.error;
  console.debug = console.error;
}
