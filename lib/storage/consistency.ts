/**
 * `lineage doctor [--repair]` on the scale-out backend (issue 21 §2): do the ledger in PostgreSQL
 * and the blobs in the bucket agree? The questions the embedded doctor asks (lib/ledger/consistency.ts),
 * asked through the storage seam:
 * - entries whose blob is missing from the bucket or does not match its sha256 (every one);
 * - blobs under `<prefix>/blobs/` no entry points at. Those that continue an agent's ledger
 *   (latest + 1, + 2, … without a gap) are uploads whose entry is not in the database: a database
 *   restored from a `pg_dump` older than the bucket (acknowledged uploads since the dump), or an
 *   upload whose process died between its blob write and its commit (never acknowledged; its
 *   client adopts it on its next sync if it is re-ingested, or uploads it again if not).
 *
 * Repair on S3 means exactly one thing: re-ingesting, in order and through the normal locked
 * append, the blobs that continue their agent's ledger — safe while servers run. Nothing is ever
 * deleted or rewritten: a missing or damaged blob can only come back from the bucket's versioning
 * or a backup; a blob that continues nothing (an upload that died racing another) is listed and kept.
 *
 * Objects a deleted agent left behind (its deletion committed with its row's removal, recorded in
 * `deleted_agents`; the bucket then refused a DeleteObject, or the process died) are not unledgered
 * uploads: they are listed apart (`findDeletedLeftoverObjects`), the agent is never registered again
 * from them, and `--repair` finishes the deletion its owner asked for (`removeDeletedLeftoverObjects`):
 * the only objects doctor ever removes.
 */
import type { EntryKind } from '@/db/schema';
import {
  agentOfSnapshot, markChains, parseBlobKey, recoverInOrder, refuseDeleted, sortOutLeftovers,
  type DamagedBlob, type LeftoverBlob, type LeftoverRemoval, type RecoveredBlob, type RemovedLeftover,
} from '@/lib/ledger/consistency';
import { isLedgerError } from '@/lib/ledger/errors';
import type { LineageStorage } from './types';

export interface UnledgeredObject {
  agent_id: string;
  sequence: number;
  kind: EntryKind;
  key: string;
  /** Whether it continues the agent's ledger: what `--repair` re-ingests. */
  chains: boolean;
}

/** Every entry of every agent whose blob is missing or damaged (each blob read and checked). */
export async function findDamagedEntries(storage: LineageStorage): Promise<DamagedBlob[]> {
  const damaged: DamagedBlob[] = [];
  for (const agent of await storage.listAgents({})) {
    for (const entry of await storage.listEntries({ agentId: agent.id })) {
      try {
        await storage.readEntryBytes({ entry });
      } catch (error) {
        if (!isLedgerError(error, 'blob_corrupt')) throw error;
        damaged.push({ agent_id: entry.agent_id, sequence: entry.seq, kind: entry.kind, blob_key: entry.blob_key, problem: error.message });
      }
    }
  }
  return damaged;
}

/** Blobs in the bucket without an entry, in replay order, those continuing their agent's ledger marked. */
export async function findUnledgeredObjects(storage: LineageStorage): Promise<UnledgeredObject[]> {
  const { unledgered, latest } = await unreferencedObjects(storage);
  return markChains(unledgered, (agentId) => latest.get(agentId));
}

/** The objects deleted agents left in the bucket. */
export async function findDeletedLeftoverObjects(storage: LineageStorage): Promise<LeftoverBlob[]> {
  return (await unreferencedObjects(storage)).leftovers;
}

async function unreferencedObjects(storage: LineageStorage): Promise<{ unledgered: UnledgeredObject[]; leftovers: LeftoverBlob[]; latest: Map<string, number | null> }> {
  const agents = await storage.listAgents({});
  const referenced = new Set<string>();
  for (const agent of agents) for (const entry of await storage.listEntries({ agentId: agent.id })) referenced.add(entry.blob_key);
  const found: UnledgeredObject[] = [];
  for (const key of await storage.blobs.list()) {
    const named = parseBlobKey(key);
    if (named && !referenced.has(key)) found.push({ ...named, key, chains: false });
  }
  const latest = new Map(agents.map((a) => [a.id, a.latest_sequence]));
  return { ...sortOutLeftovers(found, await storage.listDeletedAgents()), latest };
}

/**
 * Finishes interrupted deletions: each deleted agent's leftover objects removed, each looked at again
 * just before, under the id's lock (`storage.removeLeftovers`: a registration of the id, and an upload's
 * write of its object, wait until they are gone), so an object an entry names by then — the id
 * registered again and the same bytes uploaded at the same sequence — is kept. An object the bucket
 * refuses stays listed.
 */
export async function removeDeletedLeftoverObjects(storage: LineageStorage): Promise<RemovedLeftover[]> {
  const leftovers = (await unreferencedObjects(storage)).leftovers;
  const out: RemovedLeftover[] = [];
  for (const agentId of [...new Set(leftovers.map((b) => b.agent_id))]) {
    const mine = leftovers.filter((b) => b.agent_id === agentId);
    let done: Map<string, LeftoverRemoval>;
    try {
      done = new Map((await storage.removeLeftovers({ agentId, keys: mine.map((b) => b.key) })).map((r) => [r.key, r]));
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      done = new Map(mine.map((b) => [b.key, { key: b.key, removed: false, error: message }]));
    }
    for (const blob of mine) {
      const result = done.get(blob.key);
      if (result) out.push({ ...blob, removed: result.removed, ...(result.error === undefined ? {} : { error: result.error }) });
    }
  }
  return out;
}

/**
 * When a blob was first stored (the bucket's LastModified, to the millisecond where the listing has
 * it: s3-blob-store.ts `lastModified`): the recovered entry's sync time, as the embedded doctor takes
 * the blob file's mtime (lib/ledger/consistency.ts `recoverUnledgered`). The server's own clock at
 * the original ingest, which wrote the blob just before the commit that was lost — not the
 * manifest's `created_at`, the client's export time on the client's clock (a machine's clock may be
 * a day off, lib/sync/lagging-clock.test.ts); no other record of the ingest's time survives a lost
 * commit. `now` only when the store cannot say.
 */
async function storedAt(storage: LineageStorage, key: string): Promise<Date> {
  const blobs = storage.blobs as { lastModified?: (key: string) => Promise<Date | null> };
  return (await blobs.lastModified?.(key)) ?? new Date();
}

/**
 * Re-ingests the blobs that continue their agent's ledger, in order, through the storage's own
 * ingest (checked, indexed, the sequence compared under the agent's lock). An agent whose
 * registration is gone too is registered again from its snapshot's manifest, with no tenant
 * (`recoverInOrder`: an agent stops at its first blob that fails; the others go on).
 */
export async function recoverUnledgeredObjects(storage: LineageStorage): Promise<RecoveredBlob[]> {
  const deleted = await storage.listDeletedAgents();
  return recoverInOrder(await findUnledgeredObjects(storage), async (blob) => {
    const bytes = await storage.blobs.get(blob.key);
    const now = await storedAt(storage, blob.key);
    if (!(await storage.getAgent({ agentId: blob.agent_id }))) {
      refuseDeleted(blob.agent_id, deleted);
      await storage.registerAgent({ id: blob.agent_id, ...(await agentOfSnapshot(blob.agent_id, bytes)), tenantId: null, now });
    }
    const result = blob.kind === 'delta'
      ? await storage.ingestDelta({ agentId: blob.agent_id, baseSequence: blob.sequence - 1, bytes, now })
      : await storage.ingestSnapshot({ agentId: blob.agent_id, bytes, now });
    return result.sequence;
  });
}
