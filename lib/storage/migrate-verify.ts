/**
 * The answers `lineage migrate` compares between the data directory and the scale-out copy: the
 * fleet, then for a sample of agents (every one up to 25, else 25 spread evenly) their row, newest
 * timeline page, memories at the latest sequence, workspace tree, recent changes and a search for a
 * word of their first memory. Equal means equal as canonical JSON (key order ignored).
 */
import type { AgentRow } from '@/db/schema';
import type { LineageStorage } from './types';

const SAMPLE = 25;

/** The copy and its source disagree (`code` for the CLI's `{ok:false, code}`): nothing is deleted, re-run or investigate. */
export class VerifyError extends Error {
  readonly code = 'verify_failed';

  constructor(message: string) {
    super(`verification failed: ${message}`);
    this.name = 'VerifyError';
  }
}

/** JSON with object keys sorted, so two equal answers print the same whatever their key order. */
function canonical(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) => (v && typeof v === 'object' && !Array.isArray(v) && !(v instanceof Uint8Array)
    ? Object.fromEntries(Object.entries(v as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
    : v));
}

function sample<T>(items: readonly T[]): T[] {
  if (items.length <= SAMPLE) return [...items];
  return Array.from({ length: SAMPLE }, (_, i) => items[Math.floor((i * items.length) / SAMPLE)]!);
}

/** Compares the sample; throws naming the first answer that differs; returns how many were equal. */
export async function compareAnswers(source: LineageStorage, target: LineageStorage, agents: readonly AgentRow[]): Promise<number> {
  let compared = 0;
  const same = async (what: string, ask: (s: LineageStorage) => Promise<unknown>) => {
    const [here, there] = [canonical(await ask(source)), canonical(await ask(target))];
    if (here !== there) throw new VerifyError(`${what} differs between the data directory and the scale-out backend`);
    compared += 1;
  };
  const now = new Date();
  await same('the agents list', (s) => s.listAgentsWithStats({ now }));
  await same('the changes feed', (s) => s.getChanges({ since: new Date(0), limit: 200 }));
  for (const agent of sample(agents)) {
    const agentId = agent.id;
    await same(`agent ${agentId}`, (s) => s.getAgent({ agentId }));
    if (agent.latest_sequence === null) continue;
    const seq = agent.latest_sequence;
    await same(`the timeline of ${agentId}`, (s) => s.getSequences({ agentId, limit: 50 }));
    await same(`the memories of ${agentId}`, (s) => s.getRecordsAt({ agentId, limit: 100 }));
    await same(`the workspace of ${agentId} at ${seq}`, (s) => s.getWorkspaceTree({ agentId, seq }));
    const records = await source.getRecordsAt({ agentId, limit: 1 });
    const word = records?.items[0]?.content.match(/\p{L}{3,}/u)?.[0];
    if (word) await same(`a search of "${word}" in ${agentId}`, (s) => s.search({ q: word, agentId, limit: 20 }));
  }
  return compared;
}
