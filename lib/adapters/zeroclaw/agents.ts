import { realpath } from 'node:fs/promises';
import { readOrMintAgentId } from '@/lib/adapters/shared';
import { NS } from '@/lib/core/ids';
import { uuidV5 } from '@/lib/core/uuid';
import { tableColumns, tableExists, type Db } from './sqlite-io';

/** A row of ZeroClaw's `agents` table. */
export interface ZeroclawAgent {
  id: string;
  alias: string;
  created_at: string;
}

/**
 * How a `brain.db` partitions memory: `multi` = `agents` table plus
 * `memories.agent_id` (rows are read `WHERE agent_id = ?`); `single` = the
 * pre-multi-agent layout where every row belongs to the one agent.
 */
export type BrainLayout = { kind: 'multi'; agents: ZeroclawAgent[]; file: string } | { kind: 'single' };

/** Errors a user can cause when choosing a ZeroClaw agent; `code` follows CONTRACT §2.1. */
export class ZeroclawError extends Error {
  readonly hint?: string;

  constructor(
    readonly code: 'agent_selection_ambiguous' | 'agent_not_found' | 'no_agents' | 'workspace_missing' | 'bad_store',
    message: string,
    hint?: string,
  ) {
    super(message);
    this.name = 'ZeroclawError';
    if (hint !== undefined) this.hint = hint;
  }
}

/**
 * Reads the layout; agents ordered oldest first (then alias), so "the first agent" is stable. An
 * agent whose alias is not text (NULL, a number or a BLOB another writer put there) cannot be
 * chosen by name: a clear `bad_store` naming its row, before anything is read. `file` (the database's path)
 * names the database in every error, here and in `selectAgent`.
 */
export function readLayout(db: Db, file: string): BrainLayout {
  if (!tableExists(db, 'memories')) {
    throw new ZeroclawError('bad_store', `${file} has no memories table`, "check that -w is the ZeroClaw workspace and its brain.db ZeroClaw's own (an empty file is a database without tables); nothing was read or changed");
  }
  if (!tableExists(db, 'agents') || !tableColumns(db, 'memories').includes('agent_id')) return { kind: 'single' };
  // Read exact: an INTEGER id beyond ±2^53 read as the nearest JS number would select no memory rows (or another agent's).
  const agents = (db
    .prepare('SELECT id, alias, created_at FROM agents ORDER BY created_at ASC, alias ASC')
    .safeIntegers(true)
    .all() as Record<string, unknown>[]).map((row) => ({ id: exactInteger(row.id), alias: exactInteger(row.alias), created_at: exactInteger(row.created_at) })) as ZeroclawAgent[];
  for (const agent of agents) {
    const value: unknown = agent.alias;
    if (typeof value !== 'string') {
      const alias = value === null ? 'NULL' : value instanceof Uint8Array ? 'a BLOB' : `${typeof value} ${String(value)}`;
      throw new ZeroclawError('bad_store', `${file}: the agents row with id ${JSON.stringify(String(agent.id))} has alias ${alias}, not text, so no agent of this database can be chosen by alias`, 'give that agent a text alias in brain.db (ZeroClaw keeps aliases as unique text), then run the command again; nothing was read or changed');
    }
  }
  return { kind: 'multi', agents, file };
}

/** A value read with `safeIntegers`: an integer within ±2^53 as a number, one beyond as the exact bigint. */
function exactInteger(value: unknown): unknown {
  return typeof value === 'bigint' && BigInt(Number(value)) === value ? Number(value) : value;
}

/** The selected agent plus whether it is the first (default) agent of the database. */
export interface SelectedAgent {
  /** `agents.id`, or null in the single-agent layout. */
  nativeId: string | null;
  alias: string;
  createdAt: string | null;
  isFirst: boolean;
}

/**
 * Picks the agent whose slice is read. `runtimeAgent` names an `agents.alias`; it is
 * required when the database holds several agents. Errors name the database's path and list the aliases present.
 */
export function selectAgent(layout: BrainLayout, runtimeAgent: string | undefined): SelectedAgent {
  if (layout.kind === 'single') return { nativeId: null, alias: runtimeAgent ?? 'default', createdAt: null, isFirst: true };
  const aliases = layout.agents.map((a) => a.alias);
  const list = aliases.map((a) => JSON.stringify(a)).join(', ');
  if (layout.agents.length === 0) throw new ZeroclawError('no_agents', `${layout.file} has no agents (the agents table is empty)`);
  let index: number;
  if (runtimeAgent === undefined) {
    if (layout.agents.length > 1) {
      throw new ZeroclawError(
        'agent_selection_ambiguous',
        `${layout.file} holds ${layout.agents.length} agents (${list}); choose one with --runtime-agent ALIAS`,
      );
    }
    index = 0;
  } else {
    index = aliases.indexOf(runtimeAgent);
    if (index < 0) {
      throw new ZeroclawError('agent_not_found', `no ZeroClaw agent with alias ${JSON.stringify(runtimeAgent)}; ${layout.file} has ${list}`);
    }
    // ZeroClaw keeps aliases UNIQUE; a table without that constraint may hold two of one alias.
    const ids = layout.agents.filter((a) => a.alias === runtimeAgent).map((a) => JSON.stringify(String(a.id)));
    if (ids.length > 1) {
      throw new ZeroclawError('agent_selection_ambiguous', `${layout.file} holds ${ids.length} agents with alias ${JSON.stringify(runtimeAgent)} (ids ${ids.join(', ')}); one alias must name one agent`, 'give each agent its own alias in brain.db (ZeroClaw keeps aliases unique), then run the command again; nothing was read or changed');
    }
  }
  const agent = layout.agents[index]!;
  return { nativeId: agent.id, alias: agent.alias, createdAt: agent.created_at, isFirst: index === 0 };
}

/**
 * The ALF agent id of a ZeroClaw agent. `.alf-agent-id` belongs to the workspace,
 * but one `brain.db` holds several agents: the first (or only) agent owns the
 * workspace id (`readOrMintAgentId`); any other alias gets the deterministic
 * `uuidV5(NS.zeroclawAgent, realpath(workspace) + '#' + alias)`, which is never
 * written to `.alf-agent-id`.
 */
export async function resolveAlfAgentId(args: {
  workspace: string;
  agent: SelectedAgent;
  persist: boolean;
}): Promise<string> {
  if (args.agent.isFirst) {
    return readOrMintAgentId({ workspace: args.workspace, runtime: 'zeroclaw', persist: args.persist });
  }
  return uuidV5(NS.zeroclawAgent, `${await realpath(args.workspace)}#${args.agent.alias}`);
}
