import type { SyncTarget } from './target';

/**
 * The protocol registers an agent before its first snapshot (CONTRACT §1.2): a first snapshot the
 * target refuses would leave an empty agent behind (on a server's list and its dashboard, in a data
 * directory, in the scale-out database). This module undoes that registration, for every target,
 * in one place: `undoRefusedFirstSnapshot` wraps a target's `ensureAgent` and `putSnapshot`, and
 * when the first snapshot is refused it deletes the agent again, through the target's own
 * `forgetAgent` (a delete `onlyIfEmpty`), if and only if
 * - this target registered the agent itself (`ensureAgent` answered `alreadyExisted: false`): an
 *   agent registered before — by an earlier sync killed before its upload — is never asked about;
 * - the error says the upload was refused whole (`refusedWhole`): the target answered, and stored
 *   nothing of it. Each target marks the errors that are (its own words for them differ: a
 *   server's 4xx, 503 and 507; any failure of a local ingest; a ledger's refusal or the scale-out
 *   storage out of space). Not a lost connection, nor a proxy's 502 or 504: the target may still
 *   be storing what was sent, or have stored it;
 * - the agent still holds no entry (`latestEntry` is null): another machine's first snapshot,
 *   stored meanwhile, keeps it. The delete itself is asked only if empty, which the target judges
 *   inside its own transaction: a snapshot stored between this look and the delete keeps it too.
 * A failure of the look or the delete leaves the empty agent, which the next first sync takes as
 * its own (`ensureAgent`); the sync's error is the refusal's either way.
 */
export function undoRefusedFirstSnapshot<T extends SyncTarget>(target: T): T {
  /** Agents this target registered whose first snapshot it has not stored yet. */
  const registeredHere = new Set<string>();
  return {
    ...target,
    ensureAgent: async (agent) => {
      const registered = await target.ensureAgent(agent);
      if (!registered.alreadyExisted) registeredHere.add(agent.id);
      return registered;
    },
    putSnapshot: async (agentId, bytes, written, checked) => {
      const registered = registeredHere.delete(agentId);
      try {
        return await target.putSnapshot(agentId, bytes, written, checked);
      } catch (error) {
        if (registered && isRefusedWhole(error)) await forgetIfEmpty(target, agentId);
        throw error;
      }
    },
  };
}

async function forgetIfEmpty(target: SyncTarget, agentId: string): Promise<void> {
  try {
    if ((await target.latestEntry(agentId)) !== null) return;
    await target.forgetAgent(agentId);
  } catch {
    // Kept, empty: see above.
  }
}

const REFUSED_WHOLE = Symbol('lineage.refusedWhole');

/**
 * Marks `error` (and returns it) as a target's refusal of a whole request: the target answered, and
 * stored nothing of it. What `undoRefusedFirstSnapshot` undoes a first snapshot's registration on.
 */
export function refusedWhole<E>(error: E): E {
  if (typeof error === 'object' && error !== null && Object.isExtensible(error)) Object.defineProperty(error, REFUSED_WHOLE, { value: true, enumerable: false });
  return error;
}

export function isRefusedWhole(error: unknown): boolean {
  return typeof error === 'object' && error !== null && (error as { [REFUSED_WHOLE]?: unknown })[REFUSED_WHOLE] === true;
}
