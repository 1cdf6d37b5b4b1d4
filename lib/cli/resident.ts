/**
 * The server half of `lineage sync` through a running `lineage watch` (the client half, all a
 * `lineage sync` process loads before it knows whether a watch serves it, is bin/resident-client.cjs;
 * the protocol is described there). A watch serves exactly the sync it was started for: a request
 * whose arguments, once parsed as `lineage sync` parses them and resolved against the request's
 * working directory and environment, name the same runtime, workspace, target and settings. Anything
 * else (another workspace or target, `--rebase`, `--agent-id`, `--force-first-sync`, `--change-runtime`, `--help`, an
 * unknown flag) is declined, and the client runs it itself, with its own errors.
 */
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { Command } from 'commander';
import { RESIDENT_PROTOCOL, isTrustedRunDir } from '@/bin/resident-client.cjs';
import { resolveDataDir } from '@/lib/ledger/data-dir';
import { syncOnlyOptions, workspaceSyncOptions, type SyncFlags } from './commands/sync';
import { blankOption, parseRuntime } from './parse-options';

/** The request a `lineage sync` sends (bin/resident-client.cjs `residentRequest`). */
export interface ResidentRequest {
  v: number;
  argv: string[];
  cwd: string;
  env: Record<string, string | undefined>;
  /** Only asks whether this watch serves the sync (another `lineage watch` starting). */
  probe?: boolean;
  /** The stamp of the sources the asking process runs (bin/cli-bundle.cjs `sourceStamp`). */
  stamp?: string | null;
}

/** The stamp of the sources this process runs, as bin/lineage.cjs found it (null: not started by it). */
export function cliStamp(): string | null {
  const stamp = (globalThis as Record<symbol, unknown>)[Symbol.for('lineage.cli.stamp')];
  return typeof stamp === 'string' ? stamp : null;
}

/** What a sync writes and exits with. */
export interface CommandOutput {
  stdout: string;
  code: number;
  /** A sync that found nothing to upload. */
  idle?: boolean;
  /** A failed sync's error code (`auth_failed`, …). */
  failure?: string;
  /** A failure that passes by itself (`SyncError.retryAfterSeconds`): the seconds after which the sync may go through. */
  retryAfterSeconds?: number;
}

/**
 * Settings the environment gives a sync: those that name its target or its state (`ALF_*`,
 * `LINEAGE_*`, `AWS_*`, `HOME`, `TMPDIR`), less the ones that are about the process that runs it
 * (its code cache, whether it asks a watch, the crash tests' kill point).
 */
function syncEnv(env: Record<string, string | undefined>): [string, string][] {
  const perProcess = new Set(['LINEAGE_CLI_CODE_CACHE', 'LINEAGE_CLI_FROM_SOURCE', 'LINEAGE_RESIDENT', 'LINEAGE_CRASH_AT']);
  return Object.entries(env)
    .filter((e): e is [string, string] => e[1] !== undefined && /^(ALF_|LINEAGE_|AWS_|HOME$|TMPDIR$)/.test(e[0]) && !perProcess.has(e[0]))
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
}

/**
 * A workspace as one path however it is spelled: resolved against `cwd`, then through its links
 * (a watch of `~/agent` and one of the link `~/current -> ~/agent` move the same sync state). A path
 * that cannot be followed (not there yet, a loop) is kept as resolved: the sync itself says why.
 */
function workspacePath(cwd: string, workspace: string): string {
  const resolved = path.resolve(cwd, workspace);
  try {
    return fs.realpathSync.native(resolved);
  } catch {
    return resolved;
  }
}

/**
 * The sync that flags, a working directory and an environment name, as one string: two equal keys
 * are the same sync. Paths are resolved against `cwd` (the workspace through its links:
 * `workspacePath`); the data directory only matters when no
 * server or scale-out storage is named, but it is kept either way (a difference only declines).
 */
export function syncKey(flags: SyncFlags, cwd: string, env: Record<string, string | undefined>): string {
  return JSON.stringify({
    runtime: parseRuntime(flags.runtime),
    workspace: flags.workspace === undefined ? null : workspacePath(cwd, flags.workspace),
    runtimeAgent: flags.runtimeAgent ?? null,
    data: resolveDataDir(flags.data, env as NodeJS.ProcessEnv, cwd),
    server: flags.server ?? null,
    key: flags.key ?? null,
    databaseUrl: flags.databaseUrl ?? null,
    blobUrl: flags.blobUrl ?? null,
    env: syncEnv(env),
  });
}

/**
 * Whose sync state on this machine a sync moves: its runtime, workspace and runtime agent (paths
 * resolved against `cwd`). Two watches of one such state to different targets (or keys, or settings)
 * would take it from each other: each sync of one then fails `target_changed`.
 */
export function syncIdentity(flags: SyncFlags, cwd: string): string {
  return JSON.stringify({
    runtime: parseRuntime(flags.runtime),
    workspace: flags.workspace === undefined ? null : workspacePath(cwd, flags.workspace),
    runtimeAgent: flags.runtimeAgent ?? null,
  });
}

/** The key of the sync a request asks for (and whose state it moves: `syncIdentity`), or why a watch does not serve it. */
export function requestKey(request: ResidentRequest): { key: string; identity: string } | { decline: string } {
  const command = syncOnlyOptions(workspaceSyncOptions(new Command('sync')))
    .exitOverride()
    .configureOutput({ writeOut: () => {}, writeErr: () => {} });
  let flags: SyncFlags;
  try {
    command.parse(request.argv, { from: 'user' });
    flags = command.opts<SyncFlags>();
  } catch {
    return { decline: 'arguments this watch does not serve' };
  }
  // An empty value is refused by `lineage sync` itself (main.ts), never served as the default.
  if (command.args.length > 0 || blankOption(command) !== null) return { decline: 'arguments this watch does not serve' };
  if (flags.rebase || flags.forceFirstSync || flags.changeRuntime || flags.agentId !== undefined) return { decline: 'a sync with --rebase, --force-first-sync, --change-runtime or --agent-id' };
  if (flags.workspace === undefined) return { decline: 'no workspace' };
  try {
    return { key: syncKey(flags, request.cwd, request.env), identity: syncIdentity(flags, request.cwd) };
  } catch {
    return { decline: 'arguments this watch does not serve' };
  }
}

/** How long a connection may take to send its request. */
const REQUEST_MS = 5000;

export interface ResidentServer {
  socket: string;
  close(): Promise<void>;
}

/**
 * Listens on `runDir/watch-<pid>.sock` (the directory made the user's own, 0700) for `lineage
 * sync` requests; `run` runs one that matches `key` (the caller serializes them) and says what it
 * wrote. `{ unserved: why }` when it cannot: the directory is not the user's alone (someone else's,
 * or a link), the socket's path is too long for a Unix socket, or the file system has no sockets.
 */
export async function listenResident(args: {
  runDir: string;
  key: string;
  /** Whose sync state this watch moves (`syncIdentity`), and its target's label: a probe of another watch of that state to anything else is told both. */
  identity: string;
  target: string;
  /** The stamp of the sources this watch runs (`cliStamp()`): a request of other sources is declined. */
  stamp: string | null;
  /** Called when a request for this very sync came from other sources (the package changed since the watch started). */
  stale?: () => void;
  run: (stderr: (text: string) => void) => Promise<CommandOutput>;
  served?: (output: CommandOutput) => void;
  /** How long a connection may take to send its request (REQUEST_MS; tests). */
  requestMs?: number;
}): Promise<ResidentServer | { unserved: string }> {
  const socket = path.join(args.runDir, `watch-${process.pid}.sock`);
  if (Buffer.byteLength(socket) > 100) return { unserved: `its socket's path would be too long (${socket})` };
  try {
    fs.mkdirSync(args.runDir, { recursive: true, mode: 0o700 });
    if (!isTrustedRunDir(args.runDir)) fs.chmodSync(args.runDir, 0o700);
  } catch (error) {
    return { unserved: `${args.runDir} cannot be made (${(error as Error).message})` };
  }
  if (!isTrustedRunDir(args.runDir)) return { unserved: `${args.runDir} is not this user's own directory, closed to others` };
  fs.rmSync(socket, { force: true });
  const server = net.createServer((conn) => serveOne(conn, args));
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(socket, () => resolve());
    });
  } catch (error) {
    return { unserved: `it cannot listen on ${socket} (${(error as Error).message})` };
  }
  return {
    socket,
    close: () => new Promise<void>((resolve) => {
      server.close(() => resolve());
      fs.rmSync(socket, { force: true });
    }),
  };
}

function serveOne(conn: net.Socket, args: {
  key: string; identity: string; target: string; stamp: string | null; stale?: () => void; run: (stderr: (text: string) => void) => Promise<CommandOutput>; served?: (output: CommandOutput) => void; requestMs?: number;
}): void {
  let buffered = '';
  let asked = false;
  const send = (message: object) => {
    if (!conn.destroyed) conn.write(`${JSON.stringify(message)}\n`);
  };
  conn.setEncoding('utf8');
  conn.on('error', () => {});
  // A connection that asks nothing is not kept (a watch that stops waits for its connections).
  conn.setTimeout(args.requestMs ?? REQUEST_MS, () => {
    if (!asked) conn.destroy();
  });
  conn.on('data', (chunk: string) => {
    if (asked) return;
    buffered += chunk;
    const nl = buffered.indexOf('\n');
    if (nl < 0) {
      if (buffered.length > 1 << 20) conn.destroy();
      return;
    }
    asked = true;
    conn.setTimeout(0);
    let request: ResidentRequest;
    try {
      request = JSON.parse(buffered.slice(0, nl)) as ResidentRequest;
    } catch {
      conn.end(`${JSON.stringify({ t: 'decline', why: 'not a request' })}\n`);
      return;
    }
    const valid = request !== null && typeof request === 'object' && request.v === RESIDENT_PROTOCOL && Array.isArray(request.argv) && request.argv.every((a) => typeof a === 'string')
      && typeof request.cwd === 'string' && request.env !== null && typeof request.env === 'object';
    const asks = valid ? requestKey(request) : { decline: 'not a request' };
    if (valid && request.probe === true && !('decline' in asks) && asks.key !== args.key && asks.identity === args.identity) {
      // Another watch of the same state, to another target, key or settings, is starting: it is told which runs.
      conn.end(`${JSON.stringify({ t: 'decline', why: 'another target, key or settings of the same workspace', watching: { pid: process.pid, target: args.target } })}\n`);
      return;
    }
    if ('decline' in asks || asks.key !== args.key) {
      conn.end(`${JSON.stringify({ t: 'decline', why: 'decline' in asks ? asks.decline : 'another workspace, target or settings' })}\n`);
      return;
    }
    if ((request.stamp ?? null) !== args.stamp) {
      conn.end(`${JSON.stringify({ t: 'decline', why: 'this watch runs other sources than this lineage (restart the watch)' })}\n`);
      args.stale?.();
      return;
    }
    send({ t: 'accept', pid: process.pid });
    if (request.probe) {
      conn.end();
      return;
    }
    void args.run((text) => send({ t: 'err', text })).then((output) => {
      send({ t: 'out', text: output.stdout });
      conn.end(`${JSON.stringify({ t: 'exit', code: output.code })}\n`);
      args.served?.(output);
    });
  });
}
