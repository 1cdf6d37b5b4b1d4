/** Reading the ledger: entries, restore plans (CONTRACT §1.3) and entry bytes. */
import { and, asc, eq, gt, lte, type SQL } from 'drizzle-orm';
import { ledger_entries, type AgentRow, type EntryKind, type LedgerEntryRow } from '@/db/schema';
import { readDelta, readSnapshot } from '@/lib/core/archive';
import type { AlfSnapshot } from '@/lib/core/archive/types';
import type { SequencedDelta } from '@/lib/core/restore';
import { sha256Hex } from '@/lib/core/uuid';
import { requireAgent, type TenantScope } from './agents';
import { LedgerError } from './errors';
import type { BlobStore } from './blob-store';
import type { Ledger } from './ledger';

export type { LedgerEntryRow };

/** Entries of an agent in (seq, kind) order; `sinceSeq` exclusive, `upToSeq` inclusive. */
export function listEntries(params: { ledger: Ledger; agentId: string; sinceSeq?: number; upToSeq?: number; kind?: EntryKind }): LedgerEntryRow[] {
  const conditions: (SQL | undefined)[] = [
    eq(ledger_entries.agent_id, params.agentId),
    params.sinceSeq === undefined ? undefined : gt(ledger_entries.seq, params.sinceSeq),
    params.upToSeq === undefined ? undefined : lte(ledger_entries.seq, params.upToSeq),
    params.kind === undefined ? undefined : eq(ledger_entries.kind, params.kind),
  ];
  // 'delta' < 'snapshot': at one sequence the delta sorts first, as it was ingested first.
  return params.ledger.db.db.select().from(ledger_entries).where(and(...conditions))
    .orderBy(asc(ledger_entries.seq), asc(ledger_entries.kind)).all();
}

/** Snapshot plus the deltas to fold on it to reach `sequence`. */
export interface RestorePlan {
  agentId: string;
  sequence: number;
  snapshot: LedgerEntryRow;
  deltas: LedgerEntryRow[];
}

/**
 * The largest snapshot with seq ≤ N and the deltas in (snapshot seq, N] (N defaults to latest).
 * Errors: `agent_not_found`, `never_synced` (no snapshot yet), `sequence_out_of_range` (N > latest or < 0).
 */
export function restorePlan(params: { ledger: Ledger; agentId: string; upToSequence?: number; tenantId?: TenantScope }): RestorePlan {
  const agent = requireAgent(params);
  const n = restoreTarget(agent, params.upToSequence);
  const snapshots = listEntries({ ledger: params.ledger, agentId: agent.id, upToSeq: n, kind: 'snapshot' });
  const snapshot = lastSnapshot(agent, n, snapshots);
  const deltas = listEntries({ ledger: params.ledger, agentId: agent.id, sinceSeq: snapshot.seq, upToSeq: n, kind: 'delta' });
  return { agentId: agent.id, sequence: n, snapshot, deltas };
}

/** The sequence a restore plan reaches (default latest), or `never_synced` / `sequence_out_of_range` (both backends' check). */
export function restoreTarget(agent: AgentRow, upToSequence: number | undefined): number {
  const latest = agent.latest_sequence;
  if (latest === null || agent.latest_snapshot_seq === null) {
    throw new LedgerError('never_synced', `agent ${agent.id} has never been synced`);
  }
  const n = upToSequence ?? latest;
  if (!Number.isSafeInteger(n) || n < 0 || n > latest) {
    throw new LedgerError('sequence_out_of_range', `up_to_sequence ${n} exceeds agent's latest sequence ${latest}`, { latest });
  }
  return n;
}

/** The plan's base: the last of the snapshots at or before `n` (seq order). */
export function lastSnapshot(agent: AgentRow, n: number, snapshots: LedgerEntryRow[]): LedgerEntryRow {
  const snapshot = snapshots[snapshots.length - 1];
  if (!snapshot) throw new LedgerError('never_synced', `agent ${agent.id} has no snapshot at or before sequence ${n}`);
  return snapshot;
}

/** One entry of an agent by its id (a signed download names both), or null. */
export function getEntry(params: { ledger: Ledger; agentId: string; entryId: string }): LedgerEntryRow | null {
  return params.ledger.db.db.select().from(ledger_entries)
    .where(and(eq(ledger_entries.id, params.entryId), eq(ledger_entries.agent_id, params.agentId))).get() ?? null;
}

/**
 * The bytes of an entry, verified against its recorded sha256. A missing or damaged blob is
 * `blob_corrupt` naming the agent and sequence (the ledger says the entry exists; its bytes are gone).
 */
export async function readEntryBytes(params: {
  ledger: Ledger; entry: Pick<LedgerEntryRow, 'blob_key' | 'sha256' | 'agent_id' | 'seq' | 'kind'>;
}): Promise<Uint8Array> {
  return readEntryBytesFrom(params.ledger.blobs, params.entry);
}

/** `readEntryBytes` on any blob store (the scale-out storage's bucket too). */
export async function readEntryBytesFrom(blobs: BlobStore, entry: Pick<LedgerEntryRow, 'blob_key' | 'sha256' | 'agent_id' | 'seq' | 'kind'>): Promise<Uint8Array> {
  let bytes: Uint8Array;
  try {
    bytes = await blobs.get(entry.blob_key);
  } catch (error) {
    if (error instanceof LedgerError && error.code === 'blob_missing') throw blobCorrupt(entry, `its blob ${entry.blob_key} is missing`, error);
    // A packed blob whose file or base is damaged (blob-files.ts).
    if (error instanceof LedgerError && error.code === 'blob_corrupt') throw blobCorrupt(entry, error.message.replace(/^blob /, 'its blob '), error);
    throw error;
  }
  if (sha256Hex(bytes) !== entry.sha256) throw blobCorrupt(entry, `its blob ${entry.blob_key} does not match its recorded sha256`);
  return bytes;
}

function blobCorrupt(entry: Pick<LedgerEntryRow, 'blob_key' | 'agent_id' | 'seq' | 'kind'>, what: string, cause?: unknown): LedgerError {
  return new LedgerError('blob_corrupt',
    `the ${entry.kind} of agent ${entry.agent_id} at sequence ${entry.seq} is damaged: ${what}; restore that file from a backup ` +
    '(`lineage index --rebuild` lists every damaged blob)', { agentId: entry.agent_id, sequence: entry.seq }, { cause });
}

/** The parsed snapshot and deltas of a plan, ready for the restore fold (`foldSnapshot`). */
export async function readPlanArchives(params: { ledger: Ledger; plan: RestorePlan }): Promise<{ base: AlfSnapshot; baseSequence: number; deltas: SequencedDelta[] }> {
  return readPlanArchivesFrom(params.ledger.blobs, params.plan);
}

/** `readPlanArchives` on any blob store. */
export async function readPlanArchivesFrom(blobs: BlobStore, plan: RestorePlan): Promise<{ base: AlfSnapshot; baseSequence: number; deltas: SequencedDelta[] }> {
  const base = await readSnapshot(await readEntryBytesFrom(blobs, plan.snapshot));
  const deltas: SequencedDelta[] = [];
  for (const entry of plan.deltas) {
    deltas.push({ sequence: entry.seq, delta: await readDelta(await readEntryBytesFrom(blobs, entry)) });
  }
  return { base, baseSequence: plan.snapshot.seq, deltas };
}
