import path from 'node:path';

/** Where an agent's client-state store is: its index, and its log of each generation. */
export function storePaths(stateDir: string, agentId: string) {
  return {
    index: path.join(stateDir, `${agentId}-state.idx`),
    log: (generation: number) => path.join(stateDir, `${agentId}-state-${generation}.log`),
    /** Matches the agent's log files (any generation). */
    isLog: (name: string) => name.startsWith(`${agentId}-state-`) && name.endsWith('.log'),
  };
}
