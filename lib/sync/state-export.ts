/**
 * `lineage state export`: the base `.alf` of an agent's client state, written where the reference
 * CLI reads it (`$ALF_HOME/.alf/state/{agent}-snapshot.alf`, CONTRACT §2.4), so that it can take
 * the workspace over. With the store layout (lib/sync/store) a sync that uploads keeps no `.alf`;
 * this writes the one the store stands for — the same bytes as a sync with the `.alf` layout keeps
 * — and the store names it, so that the next sync goes on from the store (and removes the `.alf`
 * once it uploads: it is then no longer the base). With the `.alf` layout, the `.alf` is there.
 */
import { existsSync } from 'node:fs';
import { withAgentLock } from './agent-lock';
import { SyncError } from './errors';
import { baseIdentity } from './stat-cache';
import { readClientState, statePaths, writeBaseFile } from './state';
import { storeBaseBytes } from './store/export-alf';
import { writeIndex } from './store/index-file';
import { openForSync } from './store/open-store';
import { storePaths } from './store/paths';

export interface StateExportOutput {
  ok: true;
  agent_id: string;
  sequence: number;
  snapshot_path: string;
  /** `store`: written now from the store; `alf`: the `.alf` was the base already. */
  from: 'store' | 'alf';
  bytes: number;
}

export async function exportStateBase(args: { alfHome: string; agentId: string }): Promise<StateExportOutput> {
  // No state of this agent (its TOML: without it there is nothing to export, whatever else is
  // there): `state_missing`, and nothing is written, not even a lock — the state directory holds
  // the other agents' states, so its existence says nothing of this one.
  if (!existsSync(statePaths(args.alfHome, args.agentId).toml)) return exportHoldingLock(args);
  // The lock a sync of this agent holds (agent-lock.ts): the state does not change under the export.
  return withAgentLock({ alfHome: args.alfHome, key: args.agentId, what: `agent ${args.agentId}` }, () => exportHoldingLock(args));
}

async function exportHoldingLock(args: { alfHome: string; agentId: string }): Promise<StateExportOutput> {
  const { alfHome, agentId } = args;
  const paths = statePaths(alfHome, agentId);
  const opening = await openForSync(alfHome, agentId);
  if (opening.kind === 'store') {
    const { store } = opening;
    store.log.close();
    const built = await storeBaseBytes(alfHome, agentId, store.index.sequence);
    if (!built) throw new SyncError('state_missing', `the client state of agent ${agentId} changed while it was exported`, 'run `lineage state export` again');
    await writeBaseFile(alfHome, agentId, built.bytes);
    // The index names the `.alf` it holds, with the racy bound of its own stat data kept.
    const alf = await baseIdentity(paths.snapshot);
    const meta = { ...store.index.meta, stat_time_ns: store.index.meta.stat_time_ns ?? String(store.writtenNs) };
    await writeIndex(storePaths(paths.dir, agentId).index, { ...store.index, alf, meta });
    return { ok: true, agent_id: agentId, sequence: store.index.sequence, snapshot_path: paths.snapshot, from: 'store', bytes: built.bytes.byteLength };
  }
  const [state, alf] = await Promise.all([readClientState(alfHome, agentId).catch(() => null), baseIdentity(paths.snapshot)]);
  if (state?.last_synced_sequence === undefined || alf === null) {
    throw new SyncError('state_missing', `this machine has no sync state for agent ${agentId} under ${paths.dir}`, 'run `lineage sync` first (or `lineage sync --rebase` to take the target\'s latest as the base)');
  }
  const size = Number(alf.split(':')[1]);
  return { ok: true, agent_id: agentId, sequence: state.last_synced_sequence, snapshot_path: paths.snapshot, from: 'alf', bytes: size };
}
