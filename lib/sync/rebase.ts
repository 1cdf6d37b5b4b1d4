import { getAdapter } from '@/lib/adapters';
import type { Runtime } from '@/lib/adapters/types';
import { writeSnapshot } from '@/lib/core/archive';
import type { Clock } from '@/lib/core/clock';
import { syncLock, withAgentLock } from './agent-lock';
import { rebuildAt } from './restore';
import { readClientState, statePaths, writeClientState } from './state';
import type { SyncTarget } from './target';
import { writeTargetMark } from './target-mark';

export interface RebaseOutput {
  ok: true;
  rebased: true;
  /** The target's latest sequence, now this machine's base. */
  sequence: number;
  /** The sequence this machine's state was at before (null: it had none). */
  previous_sequence: number | null;
  snapshot_path: string;
  agent: { runtime_agent: string; alf_agent_id: string };
}

/**
 * `lineage sync --rebase`: the target's latest state becomes this machine's base, and the workspace
 * is left exactly as it is (not even its marker is written: it is not at that sequence). The next
 * sync then uploads the workspace's difference from that state — the way out of a sequence
 * conflict whose entries are not this machine's own upload.
 */
export async function rebaseWorkspace(opts: {
  runtime: Runtime; workspace: string; runtimeAgent?: string; target: SyncTarget; alfHome: string; clock: Clock; log?: (line: string) => void;
}): Promise<RebaseOutput> {
  const now = opts.clock();
  // The export says whose workspace this is, as a sync computes it; nothing is written.
  const exported = await getAdapter(opts.runtime).exportWorkspace({ workspace: opts.workspace, runtimeAgent: opts.runtimeAgent, persistAgentId: false, clock: opts.clock });
  const agentId = exported.agentId;
  // The state is read and written holding the lock a sync of this agent holds (agent-lock.ts).
  const lock = syncLock(opts, agentId);
  const { previous, sequence } = await withAgentLock({ alfHome: opts.alfHome, ...lock, log: opts.log }, async () => {
    const previous = (await readClientState(opts.alfHome, agentId))?.last_synced_sequence ?? null;
    const { snapshot, sequence, syncedAt } = await rebuildAt({ target: opts.target, agentId, now });
    await writeClientState({
      alfHome: opts.alfHome,
      // No earlier than the head entry's created_at (restore.ts syncedAtOnto): the next delta is not refused for a clock behind.
      state: { agent_id: agentId, last_synced_sequence: sequence, last_synced_at: syncedAt },
      baseSnapshot: await writeSnapshot(snapshot, { storeRaw: true }),
    });
    await writeTargetMark(opts.alfHome, agentId, opts.target);
    return { previous, sequence };
  });
  opts.log?.(`rebased ${agentId} on sequence ${sequence} of ${opts.target.label} (was ${previous ?? 'never synced'})`);
  return {
    ok: true,
    rebased: true,
    sequence,
    previous_sequence: previous,
    snapshot_path: statePaths(opts.alfHome, agentId).snapshot,
    agent: { runtime_agent: opts.runtimeAgent ?? exported.agentName, alf_agent_id: agentId },
  };
}
