/**
 * Which target this machine's sync state of an agent follows. The state (`{agent}.toml`, its base)
 * names a sequence, and a sequence means something only on the target it was synced with: the
 * reference CLI has one service, `lineage` has as many as a user names (`--data DIR`, `--server
 * URL --key KEY`, a scale-out store). So beside the state, `{agent}.target` holds the identity of
 * the target it was last synced with, restored from or rebased onto (SyncTarget.identity; a
 * server's key only as a digest). The reference CLI never reads it.
 *
 * A sync to the target the mark names goes on as ever (an idle one reads this one small file and
 * asks the target nothing). A sync to another target — or with no mark, a state written before
 * marks or by the reference CLI — asks that target for the agent's latest entry first:
 * - none: the target has nothing of the agent, so the sync is a first sync there (a full
 *   snapshot), whatever the state says; before marks, it said "no changes" and uploaded nothing;
 * - at the state's sequence, and it is the upload this workspace last recorded sending (its
 *   sha256, synced-marker.ts `sent`; or no upload is recorded): the state is that target's, and
 *   the mark says so from now on (a sync killed between its state and its mark lands here too);
 * - anything else, with a mark naming another target: refused, changing nothing. A delta made
 *   against one target's base must not land on another's history, even at the same sequence; the
 *   hint names the two ways on. With no mark, the sync goes on as before marks (see below).
 */
import path from 'node:path';
import { nodeCrypto } from '@/lib/core/builtin';
import { SyncError } from './errors';
import { readSmallFile, statePaths, writeFileAtomic } from './state';
import { readSent } from './synced-marker';
import type { SyncTarget } from './target';

/** A target's identity as a mark holds it. */
export function targetIdentity(target: Pick<SyncTarget, 'label' | 'identity'>): string {
  return target.identity ?? target.label;
}

/**
 * A server's identity: its URL (without any user name or password in it) and a digest of the key
 * (a key names a tenant): neither secret is written down.
 */
export function serverIdentity(baseUrl: string, apiKey: string): string {
  let url = baseUrl;
  try {
    const parsed = new URL(baseUrl);
    parsed.username = '';
    parsed.password = '';
    url = parsed.toString().replace(/\/$/, '');
  } catch {
    // Not a URL a client would reach: kept as given (it holds no credentials a URL could carry).
  }
  return `${url} key-sha256:${nodeCrypto().createHash('sha256').update(apiKey).digest('hex').slice(0, 16)}`;
}

function markPath(alfHome: string, agentId: string): string {
  return path.join(statePaths(alfHome, agentId).dir, `${agentId}.target`);
}

export function readTargetMark(alfHome: string, agentId: string): string | null {
  let text: string | null;
  try {
    text = readSmallFile(markPath(alfHome, agentId));
  } catch {
    return null;
  }
  if (text === null) return null;
  try {
    const doc = JSON.parse(text) as unknown;
    return doc !== null && typeof doc === 'object' && typeof (doc as { target?: unknown }).target === 'string' ? (doc as { target: string }).target : null;
  } catch {
    return null;
  }
}

/** Marks the agent's state as `target`'s; written only when it says otherwise. */
export async function writeTargetMark(alfHome: string, agentId: string, target: Pick<SyncTarget, 'label' | 'identity'>): Promise<void> {
  const identity = targetIdentity(target);
  if (readTargetMark(alfHome, agentId) === identity) return;
  await writeFileAtomic(markPath(alfHome, agentId), Buffer.from(`${JSON.stringify({ target: identity })}\n`));
}

/**
 * Whether the agent's state, at `sequence`, is a base for a sync to `opts.target`: `same` (the mark
 * names it, or the target's latest entry is this state's: then marked), `new` (the target has
 * nothing of the agent: the sync is a first sync there); otherwise throws (see the top of this file).
 */
export async function confirmTarget(
  opts: { alfHome: string; workspace: string; runtime: string; runtimeAgent?: string; target: SyncTarget; log?: (line: string) => void },
  agentId: string,
  sequence: number,
): Promise<'same' | 'new'> {
  const mark = readTargetMark(opts.alfHome, agentId);
  if (mark === targetIdentity(opts.target)) return 'same';
  const latest = await opts.target.latestEntry(agentId);
  const log = opts.log ?? (() => {});
  if (latest === null) {
    log(`${opts.target.label} has nothing of agent ${agentId}: a first sync there (this machine's state is at sequence ${sequence}${mark === null ? '' : ` of ${mark}`})`);
    return 'new';
  }
  const sent = await readSent(opts.workspace, agentId);
  if (latest.sequence === sequence && (sent === null || sent.sha256 === (await latest.sha256()))) {
    await writeTargetMark(opts.alfHome, agentId, opts.target);
    return 'same';
  }
  // No mark: a state from before marks (or the reference CLI's) is taken to be this target's, as it
  // was then; the upload's own checks apply (a stale base refused, this machine's own upload of a
  // killed sync adopted), and the mark is written once an upload is accepted.
  if (mark === null) return 'same';
  // The recovery module (and the archive code under it) loads only here: not on an idle sync's path.
  const { rebaseCommand } = await import('./recover');
  throw new SyncError(
    'target_changed',
    `agent ${agentId} is at sequence ${latest.sequence} on ${opts.target.label}, but this machine's sync state (sequence ${sequence}) follows ${mark}`,
    `sync to the target this machine's state follows, or run \`${rebaseCommand({ ...opts, target: opts.target })}\` to take ${opts.target.label}'s history as this machine's base without changing the workspace`,
  );
}
