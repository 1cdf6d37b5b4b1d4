import net from 'node:net';
import { databaseExists } from '@/db/client';
import { unsafePortReason } from '@/lib/client/unsafe-ports';
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
 * a banner goes to stderr and `{"ok":true,"url","data"}` to stdout (on the scale-out storage
 * `data` is null and `database`, `blobs` say what is served), then it serves until SIGINT or
 * SIGTERM. Libraries that log with `console.log` (Next.js does, as it loads its config) are sent
 * to stderr for the process's life, so stdout carries that one JSON object and nothing else.
 */
/** A storage opened by the composition root, the secret its URLs and sessions are signed with, and where it is. */
export interface ServedBackend {
  storage: LineageStorage;
  secret: Buffer;
  /** The database's host and name (no user, no password), and `s3://bucket[/prefix]`. */
  served: { database: string; blobs: string };
}

/**
 * The scale-out storage a serving process installs (opened once per process by the composition
 * root), signing URLs and sessions with `LINEAGE_SECRET` so every process accepts the others'.
 */
export async function scaleOutBackend(config: ScaleOutConfig): Promise<ServedBackend> {
  const { openStorage } = await import('@/lib/storage/config');
  const key = `${config.databaseUrl}|${config.blobs.bucket}/${config.blobs.prefix}`;
  return {
    storage: await storageFor({ backend: 'scale-out', key, open: () => openStorage(config) }),
    secret: config.secret,
    served: scaleOutServed(config),
  };
}

/** The database (host and name only: the URL's user and password stay out of stdout) and bucket a scale-out process serves. */
function scaleOutServed(config: ScaleOutConfig): { database: string; blobs: string } {
  let database = 'the database';
  try {
    const url = new URL(config.databaseUrl);
    database = `${url.host}${url.pathname}`;
  } catch {
    // A URL the driver accepts but WHATWG does not: name no part of it.
  }
  return { database, blobs: `s3://${config.blobs.bucket}${config.blobs.prefix ? `/${config.blobs.prefix}` : ''}` };
}

/** Where a served storage is, for the banner: the data directory, or the database and bucket (no password). */
export function describeServed(config: { backend: 'embedded'; dataDir: string } | ScaleOutConfig): string {
  return config.backend === 'embedded' ? `data: ${config.dataDir}` : describeScaleOut(config.databaseUrl, config.blobs);
}

/**
 * What would make serving fail, asked before anything is opened or created: the server itself
 * finds out only at its listen (and its key check), after it has made the data directory and its
 * database — and `start` after it has seeded the demo fleet and built the dashboard. `embedded`:
 * the data directory it would serve, null on the scale-out settings.
 */
export async function checkBeforeServing(settings: ServeSettings, embedded: string | null, command: 'serve' | 'start'): Promise<void> {
  await checkListenable(settings.host, settings.port);
  const authRequired = settings.auth === 'required' || !isLoopbackAddress(settings.host);
  // A data directory with no database has no API key: the server would refuse, having made both.
  if (authRequired && embedded !== null && !databaseExists(embedded)) {
    const why = isLoopbackAddress(settings.host) ? 'sign-in is required (--auth required)' : `binding ${settings.host} exposes every agent's memory to the network`;
    throw new CliError('no_admin_key', `refusing to serve: ${why} and there is no API key to sign in with (no data directory at ${embedded} yet)`,
      `create an admin key first: \`lineage keys create --admin --data ${embedded}\`, then run \`lineage ${command}\` again and sign in at /login with it`);
  }
}

/**
 * Whether a server can listen at `host:port`: a port browsers and fetch refuse to connect to
 * (unsafe-ports.ts), a port another process holds, one below 1024
 * without the privilege, or a host that is not this machine's is refused in words (port 0: any
 * free port, so only the host is tried). A port taken between this and the server's own listen is
 * still refused by it (`port_in_use`, output.ts), only later.
 */
export async function checkListenable(host: string, port: number): Promise<void> {
  const unsafe = unsafePortReason(port);
  if (unsafe !== null) {
    // It listens, and then no browser opens the dashboard (ERR_UNSAFE_PORT) and no `lineage sync` reaches it.
    throw new CliError('port_not_allowed', `not serving on port ${port}: ${unsafe}, so the dashboard would not open and \`lineage sync --server\` could not reach it`, 'choose another port with --port (or PORT), e.g. 3000; --port 0 takes any free one');
  }
  const probe = net.createServer();
  try {
    await new Promise<void>((resolve, reject) => {
      probe.once('error', reject);
      probe.listen({ host, port, exclusive: true }, () => resolve());
    });
  } catch (error) {
    throw listenError(error, host, port);
  } finally {
    await new Promise<void>((resolve) => probe.close(() => resolve()));
  }
}

function listenError(error: unknown, host: string, port: number): unknown {
  const where = `${host.includes(':') ? `[${host}]` : host}:${port}`;
  switch ((error as { code?: unknown }).code) {
    case 'EADDRINUSE':
      return new CliError('port_in_use', `port ${port} is already in use (${where}): another process is listening there`, 'stop the other server, or choose another port with --port (or PORT); --port 0 takes any free one');
    case 'EACCES':
      return new CliError('port_not_allowed', `not allowed to listen on port ${port} (${where})`, 'ports below 1024 need privileges: choose --port 1024 or above (or PORT)');
    case 'EADDRNOTAVAIL':
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return new CliError('invalid_argument', `--host ${host} is not an address of this machine`, 'bind 127.0.0.1 (the default), 0.0.0.0 for every interface, or one of this machine\'s own addresses');
    default:
      return error;
  }
}

export async function serveUntilStopped(settings: ServeSettings, banner: (url: string) => string, backend?: ServedBackend): Promise<void> {
  consoleToStderr();
  let server;
  try {
    server = await createLineageServer({ ...settings, ...(backend ? { storage: backend.storage, secret: backend.secret } : {}), log: progress });
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
  // The data directory only when it is what is served: on the scale-out storage nothing is kept there.
  printJson(backend ? { ok: true, url: server.url, data: null, ...backend.served } : { ok: true, url: server.url, data: settings.dataDir });
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
