import { readDelta, readSnapshot, writeSnapshot } from '@/lib/core/archive';
import { foldSnapshot } from '@/lib/core/restore';
import { SyncError } from './errors';
import { readBaseSnapshot, writeClientState } from './state';
import type { SentUpload } from './synced-marker';
import type { SyncTarget } from './target';

/**
 * Recovery from a sync whose upload the target accepted but whose client state was never written
 * (killed in between, a full disk under ALF_HOME, or a state directory put back from an older
 * copy). Before uploading, a sync records the blob's sha256 in the workspace marker (`writeSent`);
 * when the target's latest entry is that very blob, one sequence after the local base (or, for a
 * first snapshot, the target's only history), it is this machine's own upload and is adopted: the
 * local base becomes that entry, and the sync goes on from there.
 */
export type Adopted = { sequence: number } | null;

/** A delta push met `latest`: adopts it when it is the delta this machine sent from `baseSequence`. */
export async function adoptSentDelta(args: {
  target: SyncTarget; alfHome: string; agentId: string; baseSequence: number; latest: number | null; sent: SentUpload | null; now: Date;
}): Promise<Adopted> {
  const { target, agentId, baseSequence, sent } = args;
  if (args.latest !== baseSequence + 1 || sent === null || sent.base_sequence !== baseSequence) return null;
  const entry = await target.latestEntry(agentId);
  if (!entry || entry.kind !== 'delta' || entry.sequence !== baseSequence + 1 || (await entry.sha256()) !== sent.sha256) return null;
  const baseBytes = await readBaseSnapshot(args.alfHome, agentId, baseSequence);
  if (!baseBytes) return null;
  // The base that sync would have written: the local base with its own delta folded on.
  const delta = await readDelta(await entry.bytes());
  const folded = foldSnapshot({ base: await readSnapshot(baseBytes), baseSequence, deltas: [{ sequence: entry.sequence, delta }], now: args.now });
  await writeClientState({
    alfHome: args.alfHome,
    state: { agent_id: agentId, last_synced_sequence: entry.sequence, last_synced_at: args.now.toISOString() },
    baseSnapshot: await writeSnapshot(folded, { storeRaw: true }),
  });
  return { sequence: entry.sequence };
}

/** A first sync found history: adopts it when its latest entry is the snapshot this machine sent. */
export async function adoptSentSnapshot(args: {
  target: SyncTarget; alfHome: string; agentId: string; latest: number; sent: SentUpload | null; now: Date;
}): Promise<Adopted> {
  const { sent } = args;
  if (sent === null || sent.base_sequence !== null) return null;
  const entry = await args.target.latestEntry(args.agentId);
  if (!entry || entry.kind !== 'snapshot' || entry.sequence !== args.latest || (await entry.sha256()) !== sent.sha256) return null;
  // A first sync keeps the snapshot it uploaded as its base, byte for byte.
  await writeClientState({
    alfHome: args.alfHome,
    state: { agent_id: args.agentId, last_synced_sequence: entry.sequence, last_synced_at: args.now.toISOString() },
    baseSnapshot: await entry.bytes(),
  });
  return { sequence: entry.sequence };
}

/** The command that takes the target's latest as this machine's base (`lineage sync --rebase`). */
export function rebaseCommand(args: { runtime: string; workspace: string; runtimeAgent?: string; target: SyncTarget }): string {
  const alias = args.runtimeAgent === undefined ? '' : ` --runtime-agent ${args.runtimeAgent}`;
  return `lineage sync --rebase -r ${args.runtime} -w ${args.workspace}${alias} ${args.target.flags}`;
}

/**
 * The target refused this machine's delta on its base: the local base is behind the target and the
 * entries after it are not this machine's upload, or the target is behind this machine's base.
 */
export function foreignHistoryError(args: {
  agentId: string; local: number; latest: number | null; command: string; target: SyncTarget; sent: SentUpload | null; baseSequence: number;
  /** The kind of the target's head entry, when it is at this machine's base sequence (`target.latestEntry`); unknown: a snapshot's words. */
  headKind?: 'snapshot' | 'delta' | null;
}): SyncError {
  if (args.latest === args.local) return supersededBaseError(args);
  if (args.latest !== null && args.latest < args.local) return targetBehindError({ ...args, latest: args.latest });
  const at = args.latest === null ? 'has moved on' : `is at sequence ${args.latest}`;
  const why = args.sent?.base_sequence === args.baseSequence
    ? `its entry after ${args.local} is not the upload this machine sent (sha256 ${args.sent.sha256.slice(0, 12)}…)`
    : `this machine sent nothing on top of sequence ${args.local}`;
  return new SyncError(
    'sync_upload_failed',
    `Sequence conflict: this machine's state for agent ${args.agentId} is at sequence ${args.local}, but ${args.target.label} ${at}, and ${why}: another machine synced this agent, or this machine's state was put back from an older copy`,
    `run \`${args.command}\` to take the latest sequence as this machine's base without changing the workspace; the next \`lineage sync\` then uploads the workspace's difference from it`,
  );
}

/**
 * The target's latest sequence is below this machine's base: the entries this machine synced after it
 * are no longer there (a data directory or database restored from a backup taken before them, or the
 * agent deleted and synced again). No other machine's upload explains that; the delta was refused and
 * nothing here changed. A rebase takes the target's latest as the base, and the next sync uploads the
 * workspace's difference from it, which holds what those lost entries brought.
 */
export function targetBehindError(args: { agentId: string; local: number; latest: number; command: string; target: SyncTarget }): SyncError {
  return new SyncError(
    'sync_upload_failed',
    `Sequence conflict: this machine's state for agent ${args.agentId} is at sequence ${args.local}, but ${args.target.label} is at sequence ${args.latest}, behind it: `
    + `the entries after ${args.latest} that this machine synced are not there (its storage restored from a backup taken before them, or the agent deleted there and synced again from elsewhere); nothing was uploaded or changed here`,
    `run \`${args.command}\` to take sequence ${args.latest} as this machine's base without changing the workspace; the next \`lineage sync\` then uploads the workspace's difference from it, `
    + `as one delta (what those entries held comes back at the head; their separate versions do not). Where the storage's blobs outlived its database (a database restored older than its bucket), `
    + `\`lineage doctor --repair\` there brings those entries back whole: ask its operator first, then a plain \`lineage sync\` goes on`,
  );
}

/**
 * The target is still at this machine's base sequence, but its entry there is not the one this
 * machine synced (lib/ledger/ingest-base.ts refused the delta, cut from this machine's base, and
 * nothing here changed): a full snapshot another machine uploaded after this machine's base (its
 * `--force-first-sync`, or a rollover), or — the head a delta — a delta made after it: the agent's
 * history there went on from an earlier sequence (its storage restored from a backup taken before
 * this machine's later entries, then other machines synced) and reached this sequence again.
 */
function supersededBaseError(args: { agentId: string; local: number; command: string; target: SyncTarget; headKind?: 'snapshot' | 'delta' | null }): SyncError {
  if (args.headKind === 'delta') {
    return new SyncError(
      'sync_upload_failed',
      `Sequence conflict: the entry at sequence ${args.local} on ${args.target.label} for agent ${args.agentId} is not the one this machine synced: it is a delta made after this machine's base at that sequence `
      + `(the agent's history there went on from an earlier sequence — its storage restored from a backup taken before this machine's later entries, then another machine synced — and reached ${args.local} again); `
      + 'this machine\'s delta, built on its own entry, was refused and nothing was uploaded or changed here',
      `run \`${args.command}\` to take sequence ${args.local} there as this machine's base without changing the workspace; the next \`lineage sync\` then uploads the workspace's difference from it `
      + '(what this workspace holds comes back at the head; what the other machine synced there and this workspace does not have is then deleted at the head, and stays in its history); '
      + 'or restore the head into this workspace (`lineage restore`, `--replace` over unsynced memory) to continue from the other machine\'s memory',
    );
  }
  return new SyncError(
    'sync_upload_failed',
    `Sequence conflict: the head of agent ${args.agentId} at sequence ${args.local} on ${args.target.label} is a full snapshot another machine uploaded `
    + `(its --force-first-sync, or a rollover) after this machine's base at that sequence: this machine's delta, built on the head it replaced, was refused and nothing was uploaded or changed here`,
    `run \`${args.command}\` to take that snapshot as this machine's base without changing the workspace; the next \`lineage sync\` then uploads the workspace's difference from it `
    + '(what the other machine has and this workspace does not is then deleted at the head, and stays in its history); or restore the head into this workspace (`lineage restore`, `--replace` over unsynced memory) to continue from the other machine\'s memory',
  );
}
