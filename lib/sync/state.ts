import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { parse, stringify } from 'smol-toml';
import { asUint8Array } from '@/lib/core/archive/zip-write';

/** `$ALF_HOME/.alf` (ALF_HOME replaces HOME as the base, CONTRACT §2.2). */
export function alfDir(env: NodeJS.ProcessEnv = process.env): string {
  return path.join(env.ALF_HOME || env.HOME || os.homedir(), '.alf');
}

export interface ClientState {
  agent_id: string;
  /** Absent means never synced; 0 is a real sequence. */
  last_synced_sequence?: number;
  last_synced_at?: string;
}

export function statePaths(alfHome: string, agentId: string) {
  const dir = path.join(alfHome, 'state');
  return { dir, toml: path.join(dir, `${agentId}.toml`), snapshot: path.join(dir, `${agentId}-snapshot.alf`) };
}

export async function readClientState(alfHome: string, agentId: string): Promise<ClientState | null> {
  const { toml } = statePaths(alfHome, agentId);
  let text: string;
  try {
    text = await fs.readFile(toml, 'utf8');
  } catch {
    return null;
  }
  const doc = parse(text) as Record<string, unknown>;
  const seq = doc.last_synced_sequence;
  return {
    agent_id: typeof doc.agent_id === 'string' ? doc.agent_id : agentId,
    ...(typeof seq === 'number' || typeof seq === 'bigint' ? { last_synced_sequence: Number(seq) } : {}),
    ...(typeof doc.last_synced_at === 'string' ? { last_synced_at: doc.last_synced_at } : {}),
  };
}

/** Persists the base first, then the state that points at it (the reference's write order). */
export async function writeClientState(args: { alfHome: string; state: ClientState; baseSnapshot: Uint8Array }): Promise<string> {
  const paths = statePaths(args.alfHome, args.state.agent_id);
  await fs.mkdir(paths.dir, { recursive: true, mode: 0o700 });
  await writeFileAtomic(paths.snapshot, args.baseSnapshot);
  await writeFileAtomic(paths.toml, Buffer.from(stringify(args.state) + '\n'));
  return paths.snapshot;
}

export async function readBaseSnapshot(alfHome: string, agentId: string): Promise<Uint8Array | null> {
  try {
    return asUint8Array(await fs.readFile(statePaths(alfHome, agentId).snapshot));
  } catch {
    return null;
  }
}

export async function writeFileAtomic(file: string, bytes: Uint8Array): Promise<void> {
  const tmp = `${file}.tmp-${process.pid}-${Date.now()}`;
  const handle = await fs.open(tmp, 'w', 0o600);
  try {
    await handle.writeFile(bytes);
    await handle.sync();
  } finally {
    await handle.close();
  }
  await fs.rename(tmp, file);
}
