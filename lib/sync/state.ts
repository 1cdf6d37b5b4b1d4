import { closeSync, fsyncSync, openSync, readFileSync, renameSync, rmSync, writeSync } from 'node:fs';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { parse, stringify } from 'smol-toml';
import { asUint8Array } from '@/lib/core/bytes';
import { isRuntime, type Runtime } from '@/lib/adapters/types';
import { storePaths } from './store/paths';

/** `$ALF_HOME/.alf` (ALF_HOME replaces HOME as the base, CONTRACT §2.2). */
export function alfDir(env: NodeJS.ProcessEnv = process.env): string {
  return path.join(env.ALF_HOME || env.HOME || os.homedir(), '.alf');
}

export interface ClientState {
  agent_id: string;
  /** Absent means never synced; 0 is a real sequence. */
  last_synced_sequence?: number;
  last_synced_at?: string;
  /**
   * The runtime whose workspace the agent was last synced (or restored into with `-w`) from: a sync
   * with another `-r` is refused (sync.ts `checkRuntime`) unless it passes `--change-runtime`.
   * Absent in a state an older lineage wrote (the base's `agent.source_runtime` says it then).
   */
  runtime?: Runtime;
}

/** `value` when it names one of lineage's runtimes, else undefined. */
export function runtimeOf(value: unknown): Runtime | undefined {
  return typeof value === 'string' && isRuntime(value) ? value : undefined;
}

export function statePaths(alfHome: string, agentId: string) {
  const dir = path.join(alfHome, 'state');
  return { dir, toml: path.join(dir, `${agentId}.toml`), snapshot: path.join(dir, `${agentId}-snapshot.alf`) };
}

export async function readClientState(alfHome: string, agentId: string): Promise<ClientState | null> {
  const { toml } = statePaths(alfHome, agentId);
  const text = readSmallFile(toml);
  if (text === null) return null;
  const doc = parse(text) as Record<string, unknown>;
  const seq = doc.last_synced_sequence;
  return {
    agent_id: typeof doc.agent_id === 'string' ? doc.agent_id : agentId,
    ...(typeof seq === 'number' || typeof seq === 'bigint' ? { last_synced_sequence: Number(seq) } : {}),
    ...(typeof doc.last_synced_at === 'string' ? { last_synced_at: doc.last_synced_at } : {}),
    ...(runtimeOf(doc.runtime) ? { runtime: runtimeOf(doc.runtime) } : {}),
  };
}

/**
 * Persists the base first, then the state that points at it (the reference's write order). The
 * base is then the `.alf`: the client-state store's index, if any, goes before the TOML is
 * written (else a state set back to an older sequence — a rebase onto a target behind the store —
 * would read as a sync killed before its TOML, and the store's newer state be taken again).
 */
export async function writeClientState(args: { alfHome: string; state: ClientState; baseSnapshot: Uint8Array }): Promise<string> {
  const base = await writeBaseFile(args.alfHome, args.state.agent_id, args.baseSnapshot);
  await fs.rm(storePaths(path.dirname(base), args.state.agent_id).index, { force: true });
  await writeStateToml(args.alfHome, args.state);
  return base;
}

/** The base alone (durable, atomic): the first half of writeClientState. */
export async function writeBaseFile(alfHome: string, agentId: string, baseSnapshot: Uint8Array): Promise<string> {
  const paths = statePaths(alfHome, agentId);
  await fs.mkdir(paths.dir, { recursive: true, mode: 0o700 });
  await writeFileAtomic(paths.snapshot, baseSnapshot);
  return paths.snapshot;
}

/**
 * The state TOML that points at the base (written after it). A state that names no runtime (a
 * rebase, an adoption) keeps the one the TOML it replaces names.
 */
export async function writeStateToml(alfHome: string, state: ClientState): Promise<void> {
  const file = statePaths(alfHome, state.agent_id).toml;
  let written = state;
  if (state.runtime === undefined) {
    const previous = readSmallFile(file);
    const runtime = previous === null ? undefined : runtimeOf(tryParse(previous)?.runtime);
    if (runtime) written = { ...state, runtime };
  }
  await writeFileAtomic(file, Buffer.from(stringify(written) + '\n'));
}

function tryParse(text: string): Record<string, unknown> | null {
  try {
    return parse(text) as Record<string, unknown>;
  } catch {
    return null;
  }
}

/**
 * The base: `{agent}-snapshot.alf`, or, without one, the `.alf` the agent's client-state store
 * stands for (lib/sync/store) when it is at `sequence` (default: the TOML's).
 */
export async function readBaseSnapshot(alfHome: string, agentId: string, sequence?: number): Promise<Uint8Array | null> {
  try {
    return asUint8Array(await readWhole(statePaths(alfHome, agentId).snapshot));
  } catch {
    const at = sequence ?? (await readClientState(alfHome, agentId).catch(() => null))?.last_synced_sequence;
    if (at === undefined) return null;
    const fromStore = await (await import('./store/export-alf')).storeBaseBytes(alfHome, agentId, at).catch(() => null);
    return fromStore?.bytes ?? null;
  }
}

/**
 * A file's bytes, read by one positional read of its whole size on the thread pool (more only if
 * it comes short). `fs.readFile` reads large files 512 KiB at a time, each next read scheduled from
 * this thread: while a sync's export keeps this thread busy, reading its base that way stalls
 * between chunks. For files replaced whole by rename (as the client state is), never appended to.
 */
export async function readWhole(file: string): Promise<Buffer> {
  const handle = await fs.open(file, 'r');
  try {
    const { size } = await handle.stat();
    const buffer = Buffer.allocUnsafeSlow(size);
    let at = 0;
    while (at < size) {
      const { bytesRead } = await handle.read(buffer, at, size - at, at);
      if (bytesRead === 0) break;
      at += bytesRead;
    }
    return at === size ? buffer : buffer.subarray(0, at);
  } finally {
    await handle.close();
  }
}

/**
 * Writes `bytes` to a temporary name beside `file`, then renames it over `file`: readers see the
 * old file or the new one, never a part. `durable: false` skips the flush to disk before the
 * rename (after a crash the file may then be missing or torn: for files whose reader checks them).
 */
export async function writeFileAtomic(file: string, bytes: Uint8Array, options: { durable?: boolean } = {}): Promise<void> {
  const tmp = `${file}.tmp-${process.pid}-${Date.now()}`;
  if (bytes.byteLength <= SMALL_FILE) {
    writeSmallFileAtomic(file, tmp, bytes, options.durable !== false);
    return;
  }
  const handle = await fs.open(tmp, 'w', 0o600);
  try {
    try {
      // One positional write of the whole (writeFile goes 512 KiB at a time, each next write
      // scheduled from this thread).
      for (let at = 0; at < bytes.byteLength; ) at += (await handle.write(bytes, at, bytes.byteLength - at, at)).bytesWritten;
      if (options.durable !== false) await handle.sync();
    } finally {
      await handle.close();
    }
    await fs.rename(tmp, file);
  } catch (error) {
    // A full disk must not leave the part written behind, taking the space a retry needs.
    await fs.rm(tmp, { force: true }).catch(() => {});
    throw error;
  }
}

/**
 * Up to this size a state file is read and written with synchronous calls: a sync writes four or
 * five such files (the index, the TOML, the workspace's marker twice), and each call on the thread
 * pool is a round trip that costs more wall time than the write itself. Larger ones (a `.alf`
 * base) stay on the thread pool, where their writes do not hold this thread.
 */
export const SMALL_FILE = 1 << 20;

/** writeFileAtomic of a small file, synchronously: the same steps, the same cleanup on failure. */
function writeSmallFileAtomic(file: string, tmp: string, bytes: Uint8Array, durable: boolean): void {
  try {
    const fd = openSync(tmp, 'w', 0o600);
    try {
      for (let at = 0; at < bytes.byteLength; ) at += writeSync(fd, bytes, at, bytes.byteLength - at, at);
      if (durable) fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(tmp, file);
  } catch (error) {
    rmSync(tmp, { force: true });
    throw error;
  }
}

/** A small state file's text (read synchronously: see SMALL_FILE), or null when it cannot be read. */
export function readSmallFile(file: string): string | null {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return null;
  }
}
