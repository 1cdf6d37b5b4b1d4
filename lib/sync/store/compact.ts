/**
 * Compaction of an agent's client-state store off the sync's path. A sync whose append leaves the
 * log holding more dead bytes than live ones (write-state.ts `compacts`) commits its state as an
 * append, and then starts a detached `lineage state compact` (background-compaction.ts), which
 * waits for the agent's lock (agent-lock.ts: the sync holds it until it returns), and writes the
 * log anew as the next generation holding only what is live — at the same sequence, the index
 * naming the same files, tables and lines. A 1% sync of a 50,000-record store paid ~500 ms for that
 * every ~6th time (the whole state, ~40 MB, written and flushed).
 *
 * Crash safety is the sync's: the new generation's log is written and flushed before the index
 * that names it is renamed into place (a kill before leaves the current state, and the next writer
 * removes the unnamed log); the old generation's log is removed only after. A compaction that never
 * runs (killed, or no process could be started) only leaves the log longer: the next sync that
 * appends starts another, and past three times as many dead bytes as live ones a sync compacts
 * itself (write-state.ts).
 */
import { crashPoint } from '../crash-points';
import { statePaths } from '../state';
import { openForSync, removeStale } from './open-store';
import { compacts, prepareState, type NextFile } from './write-state';

export interface CompactOutput {
  ok: true;
  agent_id: string;
  /** Whether a new generation was written (false: the store is not the base, or not due and not forced). */
  compacted: boolean;
  sequence: number | null;
  generation: number | null;
  log_bytes_before: number | null;
  log_bytes: number | null;
}

/**
 * The agent's store compacted when it is due (or `force`): the caller holds the agent's lock. The
 * log's live blocks are copied into a new generation (record tables re-encoded with their lines'
 * new places), the index renamed over the old one, the old log removed.
 */
export async function compactStore(args: { alfHome: string; agentId: string; force?: boolean }): Promise<CompactOutput> {
  const { alfHome, agentId } = args;
  const opening = await openForSync(alfHome, agentId);
  const none = { ok: true, agent_id: agentId, compacted: false, sequence: null, generation: null, log_bytes_before: null, log_bytes: null } as const;
  if (opening.kind !== 'store') return none;
  const { index } = opening.store;
  opening.store.log.close();
  const before = { sequence: index.sequence, generation: index.generation, log_bytes_before: index.logLength, log_bytes: index.logLength };
  if (!args.force && !compacts(index.logLength - index.liveBytes, index.liveBytes)) return { ...none, ...before };
  const files: NextFile[] = index.files.map((file) => ({
    rel: file.rel, stat: file.stat, digest: file.digest, kind: file.kind, raw: file.raw, rows: null,
    ...(file.table ? { table: { ref: file.table, linesBytes: file.linesBytes } } : {}),
  }));
  const { dir } = statePaths(alfHome, agentId);
  const prepared = await prepareState({ stateDir: dir, agentId, current: index, next: { context: index.context, meta: index.meta, files, alf: index.alf }, compact: 'now' });
  const next = await prepared.commit(index.sequence);
  await removeStale(dir, agentId, { generation: next.generation, keepAlf: next.alf !== null });
  crashPoint('files-written');
  return { ok: true, agent_id: agentId, compacted: true, sequence: next.sequence, generation: next.generation, log_bytes_before: index.logLength, log_bytes: next.logLength };
}

/**
 * Where the tests stop a compaction (`LINEAGE_COMPACT_STOP_AT=<name>`: the process sends itself
 * SIGSTOP there and goes on at SIGCONT), so that syncs run at exactly that moment: `started` (before
 * it asks for the agent's lock), `locked` (holding it, before it reads the store). Unset, one comparison.
 */
export function compactStopPoint(name: 'started' | 'locked'): void {
  if (process.env.LINEAGE_COMPACT_STOP_AT === name) process.kill(process.pid, 'SIGSTOP');
}
