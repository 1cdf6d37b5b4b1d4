import fs from 'node:fs/promises';
import path from 'node:path';
import { getAdapter } from '@/lib/adapters';
import { RAW_DIRS } from '@/lib/adapters/raw-dirs';
import { databasePath, linkRefusal } from '@/lib/adapters/refused-links';
import { writeRestoredWorkspace } from '@/lib/adapters/restored-workspace';
import { assertDatabaseFileForRestore, assertDatabaseNotThroughLink, assertNotThroughRefusedLink } from '@/lib/adapters/shared/raw-write';
import { findStagingFiles, removeDeadStaging, stagingWarnings } from '@/lib/adapters/shared/restore-staging';
import type { PlannedWrites, Runtime } from '@/lib/adapters/types';
import { readDelta, readSnapshot, writeSnapshot } from '@/lib/core/archive';
import type { AlfSnapshot } from '@/lib/core/archive/types';
import type { Clock } from '@/lib/core/clock';
import { foldArchives } from '@/lib/core/restore';
import { compareTimes, instantOf } from '@/lib/ledger/ingest-base';
import { syncLock, withAgentLock } from './agent-lock';
import { SyncError } from './errors';
import { writeClientState } from './state';
import { writeTargetMark } from './target-mark';
import { readSyncedFrom, writeSyncedFrom } from './synced-marker';
import type { SyncTarget } from './target';

/**
 * Rebuilds an agent's snapshot at a sequence (default: latest) from the target's ledger. `syncedAt`:
 * what a machine that takes it as its base records as `last_synced_at` (`syncedAtOnto`).
 */
export async function rebuildAt(args: { target: SyncTarget; agentId: string; atSequence?: number; now: Date }): Promise<{ snapshot: AlfSnapshot; sequence: number; reconstructed: string[]; syncedAt: string }> {
  const bundle = await args.target.fetchRestore(args.agentId, args.atSequence);
  const base = await readSnapshot(bundle.snapshot.bytes);
  const deltas = [];
  for (const d of bundle.deltas) deltas.push({ sequence: d.sequence, delta: await readDelta(d.bytes) });
  // The head entry is the last delta when there are any, else the snapshot: its created_at, whatever its kind.
  const head = deltas.length > 0 ? deltas[deltas.length - 1]!.delta.manifest : base.manifest;
  const syncedAt = syncedAtOnto(args.now, head.created_at);
  const { snapshot, reconstructed } = foldArchives({ base, baseSequence: bundle.snapshot.sequence, deltas, now: args.now });
  return { snapshot, sequence: bundle.sequence, reconstructed, syncedAt };
}

/**
 * The `last_synced_at` of a machine whose base becomes the target's head (a head restore into a live
 * workspace, `sync --rebase`): now — or the created_at of the head entry (its manifest's: the head
 * snapshot's `manifest.json`, or the last delta's `delta-manifest.json`) when that is later, compared
 * as instants to the nanosecond whatever their offsets. A delta is taken only if its
 * `sync.base_timestamp` (this value) is no earlier than the created_at of the entry at its base
 * sequence, whatever its kind (lib/ledger/ingest-base.ts): a machine whose clock is behind the head
 * maker's would otherwise have its next delta refused as built on another entry. In the form the
 * state uses (UTC, `Z`; 3 fraction digits, 9 when the nanoseconds need them).
 */
export function syncedAtOnto(now: Date, headCreatedAt: unknown): string {
  const at = now.toISOString();
  if (typeof headCreatedAt !== 'string') return at;
  const head = instantOf(headCreatedAt);
  const order = compareTimes(headCreatedAt, at);
  if (head === null || order === null || order <= 0) return at;
  const fraction = head.nanos % 1_000_000 === 0 ? String(head.nanos / 1_000_000).padStart(3, '0') : String(head.nanos).padStart(9, '0');
  return `${new Date(head.ms).toISOString().slice(0, 19)}.${fraction}Z`;
}

export type RestoreAction = 'initialize' | 'prompt-update' | 'none';

export interface RestoreOptions {
  runtime: Runtime;
  target: SyncTarget;
  agentId: string;
  atSequence?: number;
  /** A fresh directory (`--out`): always written. */
  out?: string;
  /** A live workspace (`-w`): written only as the three-state check allows. */
  workspace?: string;
  runtimeAgent?: string;
  replace: boolean;
  alfHome: string;
  clock: Clock;
}

export interface RestoreOutput {
  ok: true;
  agent_id: string;
  agent_name: string;
  sequence: number;
  runtime: Runtime;
  memory_records: number;
  workspace: string;
  action: RestoreAction;
  applied: boolean;
  at_sequence?: number;
  would_change?: string[];
  written?: string[];
  /**
   * Workspace files written as rendered from records, not from raw bytes: those a record-only delta
   * (the reference CLI sends no raw channel) changed. Present only when there are some.
   */
  reconstructed?: string[];
  /**
   * Staging files a restore into this workspace left when it was killed (`.alf-restore-<pid>-<n>.tmp`
   * of a restore known to have ended: `restore-staging.ts`), removed by this one. Present only when
   * there were some. Those of a restore that may still run are kept and said in `warnings`.
   */
  removed_staging?: string[];
  warnings?: string[];
}

/**
 * Restores an agent. Into `--out` it writes unconditionally (the directory must be empty or new).
 * Into a live workspace it follows DESIGN "Restoring into a live workspace": initialize when no
 * memory is there, none when it is already at that state, otherwise prompt-update, which writes
 * nothing unless `replace` is given. Nothing local is ever silently overwritten.
 */
export async function restoreAgent(opts: RestoreOptions): Promise<RestoreOutput> {
  // Into a live workspace, which a head restore makes the agent's base: holding the lock a sync of it holds (agent-lock.ts).
  if (opts.out || !opts.workspace) return restoreHoldingLock(opts);
  const lock = syncLock({ runtime: opts.runtime, workspace: opts.workspace, runtimeAgent: opts.runtimeAgent }, opts.agentId);
  return withAgentLock({ alfHome: opts.alfHome, ...lock }, () => restoreHoldingLock(opts));
}

async function restoreHoldingLock(opts: RestoreOptions): Promise<RestoreOutput> {
  const now = opts.clock();
  const dir = opts.out ?? opts.workspace;
  if (!dir) throw new SyncError('workspace_missing', 'restore needs --out DIR or -w WORKSPACE', 'pass --out to restore into a fresh directory');
  const { snapshot, sequence, reconstructed, syncedAt: baseSyncedAt } = await rebuildAt({ target: opts.target, agentId: opts.agentId, atSequence: opts.atSequence, now });
  const adapter = getAdapter(opts.runtime);
  const base = {
    ok: true as const,
    agent_id: opts.agentId,
    agent_name: agentName(snapshot),
    sequence,
    runtime: opts.runtime,
    memory_records: snapshot.records.length,
    workspace: path.resolve(dir),
    ...(opts.atSequence !== undefined ? { at_sequence: opts.atSequence } : {}),
  };

  let action: RestoreAction = 'initialize';
  let removed: { removed_staging?: string[] } = {};
  let staging: string[] = [];
  if (opts.out) {
    await assertEmptyOrMissing(opts.out);
  } else {
    const plan = await adapter.plannedWrites({ snapshot, target: dir, runtimeAgent: opts.runtimeAgent, live: true, clock: opts.clock });
    // The runtime's database a link leads to a secret or a control file (`state.db -> .env`), out of
    // the workspace or to nothing, or that is no file (a directory) or under one (a file `data`): refused
    // before it is read as SQLite (the decision reads it), nothing written — a Hermes `state.db` too when
    // the snapshot has no sessions to write into it (`plan.database` null).
    const database = databasePath(opts.runtime, plan.database);
    if (database !== null) {
      assertDatabaseNotThroughLink(dir, database, linkRefusal(opts.runtime, plan.database));
      assertDatabaseFileForRestore(dir, database, plan.database === null);
    }
    // The workspace's files are read once, for the decision and what a prompt-update would change.
    let changes: Promise<PlannedChanges> | undefined;
    const changesOf = () => (changes ??= plannedChanges(dir, plan));
    action = await decideAction({ workspace: dir, runtime: opts.runtime, runtimeAgent: opts.runtimeAgent, agentId: opts.agentId, sequence, changesOf });
    // A file the restore writes (or would, with --replace) that a link leads to a secret, a database
    // or a control file of the workspace (`SOUL.md -> config.yaml`): refused, nothing written.
    if (action !== 'none') assertNotThroughRefusedLink(dir, [...plan.files.keys()], linkRefusal(opts.runtime, plan.database));
    if (action === 'prompt-update' && !opts.replace) {
      // A killed restore's leftovers are said as a sync says them; nothing is removed.
      const left = stagingWarnings(dir, await findStagingFiles(dir, RAW_DIRS[opts.runtime]));
      return { ...base, action, applied: false, would_change: wouldChange(plan, await changesOf()), ...(left.length ? { warnings: left } : {}) };
    }
    // What a killed restore staged and never renamed (its sync warns of them): removed, by a
    // restore that changes the workspace or finds it at that state already, when their restore is
    // known to have ended; the others are kept and said.
    const cleanup = await removeDeadStaging(dir, RAW_DIRS[opts.runtime]);
    if (cleanup.removed.length > 0) removed = { removed_staging: cleanup.removed };
    staging = cleanup.warnings;
    if (action === 'none') return { ...base, action, applied: false, ...removed, ...(staging.length ? { warnings: staging } : {}) };
  }

  await fs.mkdir(dir, { recursive: true });
  // The one writer of a restored workspace, which the dashboard's downloads use too.
  const result = await writeRestoredWorkspace(opts.runtime, { snapshot, target: dir, runtimeAgent: opts.runtimeAgent, live: !opts.out, clock: opts.clock });
  const syncedAt = now.toISOString();
  await writeSyncedFrom(dir, { agent_id: opts.agentId, sequence, synced_at: syncedAt });
  if (opts.workspace && opts.atSequence === undefined) {
    // A head restore into the live workspace also becomes the local delta base, as in the reference;
    // the workspace is now the agent's as this runtime (a restore into another runtime's workspace
    // is the move to it: its next sync, with this `-r`, is not refused as a wrong runtime).
    // Its last_synced_at no earlier than the head entry's created_at (syncedAtOnto): its next delta is not refused for a clock behind.
    await writeClientState({ alfHome: opts.alfHome, state: { agent_id: opts.agentId, last_synced_sequence: sequence, last_synced_at: baseSyncedAt, runtime: opts.runtime }, baseSnapshot: await writeSnapshot(snapshot) });
    await writeTargetMark(opts.alfHome, opts.agentId, opts.target);
  }
  // Rendered files are among those written only when the adapter wrote the archive's OpenClaw raw files.
  const rendered = reconstructed.filter((rel) => result.written.includes(rel));
  return {
    ...base, action, applied: true, written: result.written,
    ...(rendered.length ? { reconstructed: rendered } : {}),
    ...removed,
    ...(staging.length + result.warnings.length ? { warnings: [...staging, ...result.warnings] } : {}),
  };
}

/**
 * No memory there: initialize — unless a file the restore writes is there already with other bytes
 * (a local SOUL.md, a file another agent of a shared workspace synced), which is not overwritten
 * silently either.
 */
async function decideAction(args: {
  workspace: string; runtime: Runtime; runtimeAgent?: string; agentId: string; sequence: number; changesOf: () => Promise<PlannedChanges>;
}): Promise<RestoreAction> {
  const present = await getAdapter(args.runtime).memoryPresent(args.workspace, args.runtimeAgent);
  if (!present) return (await args.changesOf()).overwritten.length > 0 ? 'prompt-update' : 'initialize';
  const synced = await readSyncedFrom(args.workspace, args.agentId);
  if (!synced || synced.sequence !== args.sequence) return 'prompt-update';
  // At that sequence by its marker, and holding the files that state has: none. A marker is not
  // enough alone — the head at a sequence can be another machine's snapshot stored there since
  // (its --force-first-sync: README "Two machines, one agent"), and a file edited or removed since
  // the last sync would change too; each is a prompt-update (--replace writes that state).
  const changes = await args.changesOf();
  return changes.created.length + changes.overwritten.length === 0 ? 'none' : 'prompt-update';
}

/** Files the restore would write that are missing locally (`created`) or hold other bytes (`overwritten`). */
interface PlannedChanges {
  created: string[];
  overwritten: string[];
}

async function plannedChanges(workspace: string, plan: PlannedWrites): Promise<PlannedChanges> {
  const changes: PlannedChanges = { created: [], overwritten: [] };
  for (const [rel, bytes] of plan.files) {
    const existing = await fs.readFile(path.join(workspace, ...rel.split('/'))).catch(() => null);
    if (!existing) changes.created.push(rel);
    else if (!existing.equals(bytes)) changes.overwritten.push(rel);
  }
  return changes;
}

/** What a prompt-update would change: the files it creates or overwrites, and the database it writes the agent's rows into. */
function wouldChange(plan: PlannedWrites, changes: PlannedChanges): string[] {
  return [...(plan.database === null ? [] : [plan.database]), ...changes.created, ...changes.overwritten].sort();
}

/** `--out`: a new or empty directory (`restore_incomplete` otherwise); the CLI asks before it fetches anything. */
export async function assertEmptyOrMissing(dir: string): Promise<void> {
  const entries = await fs.readdir(dir).catch(() => [] as string[]);
  if (entries.length > 0) {
    throw new SyncError('restore_incomplete', `--out directory ${dir} is not empty`, 'choose a new directory, or restore into a live workspace with -w');
  }
}

function agentName(snapshot: AlfSnapshot): string {
  const agent = snapshot.manifest.agent;
  return agent && typeof agent === 'object' && !Array.isArray(agent) && typeof agent.name === 'string' ? agent.name : '';
}
