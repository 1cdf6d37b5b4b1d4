/**
 * Runs the demo's syncs through the real pipeline (adapter → reconcile → delta → ingest → index)
 * into a sync target (the local data directory, or the scale-out storage), with the scripted clock
 * as every timestamp's source.
 */
import type { Runtime } from '@/lib/adapters/types';
import { syncWorkspace, type SyncOutput } from '@/lib/sync/sync';
import type { SyncTarget } from '@/lib/sync/target';
import type { DemoClock } from './clock';

/** One scripted sync: when it runs and what it exports. */
export interface DemoSyncStep {
  at: Date;
  runtime: Runtime;
  workspace: string;
  /** ZeroClaw: `agents.alias` of the agent whose slice is synced. */
  runtimeAgent?: string;
}

/** What the fleet summary reports per agent. */
export interface DemoAgentSummary {
  id: string;
  name: string;
  runtime: Runtime;
  syncs: number;
}

export interface SyncDriver {
  /** Moves the clock to `step.at`, then syncs. A scripted step that changes nothing is a bug in the script. */
  sync(step: DemoSyncStep): Promise<SyncOutput>;
  agents(): DemoAgentSummary[];
  totalSyncs(): number;
}

/** `target` takes its ingest times from `args.clock` (`localTarget(dir, clock.now)`). */
export function createSyncDriver(args: { target: SyncTarget; alfHome: string; clock: DemoClock; log: (line: string) => void }): SyncDriver {
  const { target } = args;
  const agents = new Map<string, DemoAgentSummary>();
  let total = 0;
  return {
    async sync(step) {
      args.clock.set(step.at);
      const output = await syncWorkspace({
        runtime: step.runtime,
        workspace: step.workspace,
        runtimeAgent: step.runtimeAgent,
        target,
        alfHome: args.alfHome,
        clock: args.clock.now,
      });
      const name = step.runtimeAgent ?? output.agent.runtime_agent;
      if (output.no_changes) {
        throw new Error(`demo script: the ${step.runtime} sync of ${name} at ${step.at.toISOString()} changed nothing`);
      }
      const id = output.agent.alf_agent_id;
      const summary = agents.get(id) ?? { id, name, runtime: step.runtime, syncs: 0 };
      summary.syncs++;
      agents.set(id, summary);
      total++;
      args.log(`${step.at.toISOString()} ${step.runtime}/${name} → sequence ${output.sequence}`);
      return output;
    },
    agents: () => [...agents.values()],
    totalSyncs: () => total,
  };
}
