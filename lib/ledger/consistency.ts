/**
 * Do the ledger and its blobs agree? (issue 18 §8) Three ways they can part:
 * - an entry whose blob is missing or damaged (`findDamagedBlobs`: every one, not just the first);
 * - blob files with no entry (`findUnledgeredBlobs`). Those that chain onto an agent's latest
 *   sequence — latest + 1, + 2, … with no gap — are what a lost WAL leaves: uploads that were
 *   acknowledged and whose commit is gone. `recoverUnledgered` re-ingests them in order. Others
 *   (a race loser, an upload that died before its commit) are listed and left alone: no blob is
 *   ever deleted automatically.
 * - blob files a deleted agent left behind (`findDeletedLeftovers`): its deletion committed (its row
 *   gone, the deletion recorded in `deleted_agents`) and the removal of its blobs was interrupted (a
 *   crash, a file that could not be removed). Never unledgered data to re-ingest: the agent is not
 *   registered again from them. `removeDeletedLeftovers` (`--repair`) finishes the deletion the
 *   agent's owner asked for — the only blobs doctor ever removes.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import type { EntryKind, LedgerEntryRow } from '@/db/schema';
import { DELTA_MANIFEST_FILE, MANIFEST_FILE } from '@/lib/core/archive';
import { parseManifest } from '@/lib/core/archive/read-common';
import { ArchiveError } from '@/lib/core/archive/types';
import { readZipMember, resolveLimits } from '@/lib/core/archive/zip-read';
import { isJsonObject } from '@/lib/core/json';
import { sha256Hex } from '@/lib/core/uuid';
import { agentNameProblem, agentRuntimeProblem } from './agent-name';
import { getAgent, listDeletedAgents, registerAgent, type DeletedAgent } from './agents';
import { readEntryBytes } from './entries';
import { ingestDelta, ingestSnapshot, type EntryIndexer } from './ingest';
import { isLedgerError } from './errors';
import { baseTimestampOf, checkBuiltOnHead, entryCreatedAt } from './ingest-base';
import { FsBlobStore } from './blob-store';
import { DELETING_SUFFIX, PACKED_SUFFIX } from './blob-files';
import type { Ledger } from './ledger';
import { doctorStopPoint } from './doctor-stop-points';

export interface DamagedBlob {
  agent_id: string;
  sequence: number;
  kind: EntryKind;
  blob_key: string;
  problem: string;
}

/**
 * Every ledger entry whose blob is missing, does not match its sha256, or cannot be read (the file
 * system refuses it: a directory in its place, no permission, an I/O error) — the last was an
 * internal error of doctor itself, though the history index's notice sends the operator to doctor
 * for exactly that (`blob_unreadable`). A shortage of file handles is no blob's fault: thrown.
 */
export async function findDamagedBlobs(ledger: Ledger): Promise<DamagedBlob[]> {
  const entries = ledger.db.sqlite.prepare('SELECT * FROM ledger_entries ORDER BY agent_id, seq, kind').all() as LedgerEntryRow[];
  const damaged: DamagedBlob[] = [];
  for (const entry of entries) {
    try {
      await readEntryBytes({ ledger, entry });
    } catch (error) {
      const found = { agent_id: entry.agent_id, sequence: entry.seq, kind: entry.kind, blob_key: entry.blob_key };
      if (isLedgerError(error, 'blob_corrupt')) damaged.push({ ...found, problem: error.message });
      else if (unreadable(error)) damaged.push({ ...found, problem: `the ${entry.kind} of agent ${entry.agent_id} at sequence ${entry.seq} cannot be read: its blob ${entry.blob_key} (${(error as Error).message}); make that file readable again, or restore it from a backup` });
      else throw error;
    }
  }
  return damaged;
}

/** A file system's refusal to read one file (an errno code), not the process's own lack of handles. */
function unreadable(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && /^E[A-Z]+$/.test(code) && !['EMFILE', 'ENFILE', 'ENOMEM'].includes(code);
}

/** A blob file no ledger entry points at. */
export interface UnledgeredBlob {
  agent_id: string;
  sequence: number;
  kind: EntryKind;
  key: string;
  /** Its whole-form file name (the blob may be stored packed beside it: read it through the store). */
  file: string;
  /** Whether it continues the agent's ledger (latest + 1, + 2, … without a gap): a lost commit. */
  chains: boolean;
}

/** Blob files without a ledger entry, in replay order (agent, sequence, delta before snapshot). */
export async function findUnledgeredBlobs(ledger: Ledger): Promise<UnledgeredBlob[]> {
  return (await findUnreferencedBlobs(ledger)).unledgered;
}

/** Both lists of blob files no entry names, from one listing: the unledgered ones (chains marked) and the leftovers. */
export async function findUnreferencedBlobs(ledger: Ledger): Promise<{ unledgered: UnledgeredBlob[]; leftovers: LeftoverBlob[] }> {
  const store = ledger.blobs;
  if (!(store instanceof FsBlobStore)) return { unledgered: [], leftovers: [] };
  return unreferencedBlobs(ledger, store);
}

/** Blob files no entry names, parted into a deleted agent's leftovers and the others. */
async function unreferencedBlobs(ledger: Ledger, store: FsBlobStore): Promise<{ unledgered: UnledgeredBlob[]; leftovers: LeftoverBlob[] }> {
  const keys = await store.list();
  const { sqlite } = ledger.db;
  const referenced = new Set(sqlite.prepare('SELECT blob_key FROM ledger_entries').pluck().all() as string[]);
  const found: UnledgeredBlob[] = [];
  // Nearly every blob has its entry: the set answers first, the name is parsed for the few left.
  for (const key of keys) {
    if (referenced.has(key)) continue;
    const named = parseBlobKey(key);
    if (named) found.push({ ...named, key, file: store.pathOf(key), chains: false });
  }
  const latestOf = sqlite.prepare('SELECT latest_sequence FROM agents WHERE id = ?').pluck();
  const { unledgered, leftovers } = sortOutLeftovers(found, listDeletedAgents({ ledger }));
  return { unledgered: markChains(unledgered, (agentId) => latestOf.get(agentId) as number | null | undefined), leftovers };
}

/** A blob a deleted agent left behind: its deletion committed, the blob's removal did not happen. */
export interface LeftoverBlob {
  agent_id: string;
  sequence: number;
  kind: EntryKind;
  key: string;
  /** When the agent was deleted (its last deletion). */
  deleted_at: string;
}

/**
 * Parts blobs no entry names into a deleted agent's leftovers — exactly the keys one of its deletions
 * recorded, which entries named when it was deleted — and the others. A blob of a deleted agent that
 * no deletion recorded stays with the others, never removed: it may be an upload that raced the
 * delete and was never acknowledged, or an acknowledged upload of the id registered again whose
 * commit a lost WAL took with the registration (doctor then lists it and refuses to register the
 * deleted id from it: `refuseDeleted`). Both backends.
 */
export function sortOutLeftovers<T extends { agent_id: string; sequence: number; kind: EntryKind; key: string }>(
  found: T[], deleted: readonly DeletedAgent[],
): { unledgered: T[]; leftovers: LeftoverBlob[] } {
  const byId = new Map(deleted.map((d) => [d.id, { deleted_at: d.deleted_at, keys: new Set(d.blob_keys) }]));
  const unledgered: T[] = [];
  const leftovers: LeftoverBlob[] = [];
  for (const blob of found) {
    const deletion = byId.get(blob.agent_id);
    if (deletion?.keys.has(blob.key)) {
      leftovers.push({ agent_id: blob.agent_id, sequence: blob.sequence, kind: blob.kind, key: blob.key, deleted_at: deletion.deleted_at });
    } else {
      unledgered.push(blob);
    }
  }
  leftovers.sort((a, b) => a.agent_id.localeCompare(b.agent_id) || a.sequence - b.sequence || a.key.localeCompare(b.key));
  return { unledgered, leftovers };
}

/** The blob files deleted agents left behind (`lineage doctor` lists them apart from unledgered ones). */
export async function findDeletedLeftovers(ledger: Ledger): Promise<LeftoverBlob[]> {
  return (await findUnreferencedBlobs(ledger)).leftovers;
}

/** What finishing a deletion did with one leftover blob. */
export interface RemovedLeftover {
  agent_id: string;
  sequence: number;
  kind: EntryKind;
  key: string;
  deleted_at: string;
  removed: boolean;
  error?: string;
}

/**
 * `lineage doctor --repair` (the server stopped): finishes the deletions a crash or a failed removal
 * interrupted — each deleted agent's leftover blobs removed as the delete removes them (marked, packed
 * dependants rewritten, then gone). The agent's owner asked for exactly this; nothing an entry names is
 * removed. An agent whose removal fails keeps its blobs listed, the others go on.
 *
 * Each agent's leftovers are looked at again and removed inside one write transaction (the database's
 * write lock, held across the awaits): a sync registering the id again, or committing an entry, waits
 * until they are gone (`lineage sync --data` in another process meanwhile: its SQLite busy wait). An id
 * registered again before the repair can still have an upload in flight, its blob written before it
 * takes the write lock: a leftover at a sequence such an upload can still be acknowledged at (`mayLand`)
 * is kept and listed, removed by a later repair once the agent's ledger has moved past it.
 */
export async function removeDeletedLeftovers(ledger: Ledger): Promise<RemovedLeftover[]> {
  const store = ledger.blobs;
  if (!(store instanceof FsBlobStore)) return [];
  const leftovers = (await unreferencedBlobs(ledger, store)).leftovers;
  const out: RemovedLeftover[] = [];
  for (const agentId of [...new Set(leftovers.map((b) => b.agent_id))]) {
    const mine = leftovers.filter((b) => b.agent_id === agentId);
    let done: Map<string, LeftoverRemoval>;
    try {
      done = new Map((await removeLeftoversOf(ledger, { agentId, keys: mine.map((b) => b.key) })).map((r) => [r.key, r]));
    } catch (error) {
      // The write lock not had (another writer held it past the busy wait): nothing removed, said.
      const message = error instanceof Error ? error.message : String(error);
      done = new Map(mine.map((b) => [b.key, { key: b.key, removed: false, error: message }]));
    }
    for (const blob of mine) {
      const result = done.get(blob.key);
      if (result) out.push({ ...blob, removed: result.removed, ...(result.error === undefined ? {} : { error: result.error }) });
    }
  }
  await removeStaleDeleteMarks(ledger, store);
  return out;
}

/** What finishing a deletion did with one of its blobs (a key an entry names by then is left out). */
export interface LeftoverRemoval {
  key: string;
  removed: boolean;
  error?: string;
}

/**
 * Removes blobs a deleted agent left (`keys`, found unreferenced), in one write transaction: each key
 * looked at again, then removed, before any other writer may register the id or commit an entry
 * (`removeDeletedLeftovers`). A key an entry names by then is left out; one an upload of the id
 * registered again may still be acknowledged at (`mayLand`) is kept (`removed: false`, said why).
 */
export async function removeLeftoversOf(ledger: Ledger, p: { agentId: string; keys: readonly string[] }): Promise<LeftoverRemoval[]> {
  const store = ledger.blobs;
  if (!(store instanceof FsBlobStore)) return [];
  const { sqlite } = ledger.db;
  sqlite.exec('BEGIN IMMEDIATE');
  try {
    const agent = sqlite.prepare('SELECT latest_sequence FROM agents WHERE id = ?').get(p.agentId) as { latest_sequence: number | null } | undefined;
    const named = sqlite.prepare('SELECT 1 FROM ledger_entries WHERE agent_id = ? AND blob_key = ?').pluck();
    const doomed: string[] = [];
    const out: LeftoverRemoval[] = [];
    for (const key of new Set(p.keys)) {
      const place = parseBlobKey(key);
      if (place?.agent_id !== p.agentId || named.get(p.agentId, key) !== undefined) continue;
      if (agent && mayLand(place, agent.latest_sequence)) out.push({ key, removed: false, error: registeredAgainMessage(p.agentId, place.sequence) });
      else doomed.push(key);
    }
    doctorStopPoint('recheck');
    try {
      await store.deleteMany(doomed);
      out.push(...doomed.map((key) => ({ key, removed: true })));
    } catch (error) {
      out.push(...doomed.map((key) => ({ key, removed: false, error: error instanceof Error ? error.message : String(error) })));
    }
    return out;
  } finally {
    sqlite.exec('COMMIT');
  }
}

/**
 * Whether an upload of an agent whose latest sequence is `latest` (null: none yet) may still be
 * acknowledged at the leftover's place: a snapshot is stored at the latest sequence (0 for the first),
 * a delta at latest + 1; an upload that wrote its blob for any other place fails its sequence check.
 */
export function mayLand(blob: { sequence: number; kind: EntryKind }, latest: number | null): boolean {
  if (latest === null) return blob.kind === 'snapshot' && blob.sequence === 0;
  return blob.kind === 'snapshot' ? blob.sequence === latest : blob.sequence === latest + 1;
}

/** Why a leftover of an id registered again is kept (`removed: false`). */
export function registeredAgainMessage(agentId: string, sequence: number): string {
  return `agent ${agentId} is registered again and may still upload at sequence ${sequence}: the blob is kept; `
    + 'lineage doctor --repair removes it once the agent has synced past that sequence (or is deleted again)';
}

/**
 * The marks (`.deleting`) a delete killed in its removal loop left beside blobs it had removed already:
 * removed for every key a deletion named that is gone and that no entry names.
 */
async function removeStaleDeleteMarks(ledger: Ledger, store: FsBlobStore): Promise<void> {
  const names = (await fs.readdir(store.root).catch(() => [] as string[])).filter((n) => n.endsWith(DELETING_SUFFIX));
  if (names.length === 0) return;
  const deletedKeys = new Set(listDeletedAgents({ ledger }).flatMap((d) => d.blob_keys));
  const named = ledger.db.sqlite.prepare('SELECT 1 FROM ledger_entries WHERE blob_key = ?').pluck();
  for (const name of names) {
    const key = name.slice(0, -DELETING_SUFFIX.length).split('~').join('/');
    if (!deletedKeys.has(key) || named.get(key) !== undefined || await store.exists(key)) continue;
    await fs.rm(path.join(store.root, name), { force: true });
  }
}

/** A blob key as both backends write it: `<agent>/<seq>-<sha256 prefix>.alf|.alf-delta`. */
const BLOB_KEY = /^([0-9a-f-]{36})\/(\d+)-[0-9a-f]{16}\.(alf|alf-delta)$/;

/** The agent, sequence and kind a blob key names, or null for a key no ingest writes. */
export function parseBlobKey(key: string): { agent_id: string; sequence: number; kind: EntryKind } | null {
  const match = BLOB_KEY.exec(key);
  return match ? { agent_id: match[1]!, sequence: Number(match[2]), kind: match[3] === 'alf' ? 'snapshot' : 'delta' } : null;
}

/**
 * Sorts unledgered blobs into replay order (agent, sequence, delta before snapshot, then key) and
 * marks those that continue their agent's ledger (`latestOf`: its latest sequence, null/undefined
 * for none) — latest + 1, + 2, … without a gap. Shared by both backends' doctor.
 */
export function markChains<T extends { agent_id: string; sequence: number; kind: EntryKind; key: string; chains: boolean }>(
  found: T[], latestOf: (agentId: string) => number | null | undefined,
): T[] {
  found.sort((a, b) => a.agent_id.localeCompare(b.agent_id) || a.sequence - b.sequence || (a.kind === b.kind ? a.key.localeCompare(b.key) : a.kind === 'delta' ? -1 : 1));
  let agent: string | null = null;
  let next = 0;
  for (const blob of found) {
    if (blob.agent_id !== agent) {
      agent = blob.agent_id;
      const latest = latestOf(agent);
      next = latest === undefined || latest === null ? 0 : latest + 1;
    }
    // A delta at `next` continues the chain; a rollover snapshot sits at the sequence of the delta before it.
    if (blob.kind === 'delta' && blob.sequence === next) {
      blob.chains = true;
      next += 1;
    } else if (blob.kind === 'snapshot' && (blob.sequence === next || blob.sequence === next - 1)) {
      blob.chains = true;
      if (blob.sequence === next) next += 1;
    }
  }
  return found;
}

/** What `recoverUnledgered` did with one blob. */
export interface RecoveredBlob {
  agent_id: string;
  sequence: number;
  kind: EntryKind;
  recovered: boolean;
  error?: string;
  /**
   * A delta not built on the entry at its base sequence (`base_superseded`: a full snapshot that
   * replaced the head there, or a delta made after its base): never folded onto it, its blob kept.
   */
  superseded?: true;
}

/**
 * Re-ingests the blobs that chain onto their agent's latest sequence, in order, through the normal
 * ingest (checked, indexed; the entry's time is the blob file's mtime, when it was first stored —
 * packing keeps it —: the server's clock at the lost ingest, to the millisecond, as the scale-out doctor
 * takes the bucket's LastModified, lib/storage/consistency.ts `storedAt`).
 * An agent whose registration was lost too is registered again from its snapshot's manifest, with
 * no tenant. An agent stops at its first blob that fails; the others go on. `indexer`: the index the
 * ingest writes in its transaction (the composition root's, lib/storage/embedded-ingest.ts).
 */
export async function recoverUnledgered(ledger: Ledger, indexer: EntryIndexer): Promise<RecoveredBlob[]> {
  const deleted = listDeletedAgents({ ledger });
  return recoverInOrder(await findUnledgeredBlobs(ledger), async (blob) => {
    const bytes = await ledger.blobs.get(blob.key);
    const now = (await fs.stat(blob.file).catch(() => fs.stat(blob.file + PACKED_SUFFIX))).mtime;
    if (!getAgent({ ledger, agentId: blob.agent_id })) {
      refuseDeleted(blob.agent_id, deleted);
      checkKeySha(blob.key, bytes);
      await reRegister(ledger, blob.agent_id, bytes, now);
    }
    const result = blob.kind === 'delta'
      ? await ingestDelta({ ledger, indexer, agentId: blob.agent_id, baseSequence: blob.sequence - 1, bytes, now })
      : await ingestSnapshot({ ledger, indexer, agentId: blob.agent_id, bytes, now });
    return result.sequence;
  });
}

/**
 * Recovers, in order, the blobs that continue their agent's ledger (`recover` ingests one and gives
 * the sequence it got, which must be the blob's). An agent stops at its first blob that fails; the
 * others go on. Shared by both backends' doctor.
 */
export async function recoverInOrder<T extends { agent_id: string; sequence: number; kind: EntryKind; chains: boolean }>(
  blobs: T[], recover: (blob: T) => Promise<number>,
): Promise<RecoveredBlob[]> {
  const out: RecoveredBlob[] = [];
  const stopped = new Set<string>();
  for (const blob of blobs.filter((b) => b.chains)) {
    const base = { agent_id: blob.agent_id, sequence: blob.sequence, kind: blob.kind };
    if (stopped.has(blob.agent_id)) {
      out.push({ ...base, recovered: false, error: 'an earlier blob of this agent could not be recovered' });
      continue;
    }
    try {
      const sequence = await recover(blob);
      if (sequence !== blob.sequence) throw new Error(`it was stored at sequence ${sequence}, not ${blob.sequence}`);
      out.push({ ...base, recovered: true });
    } catch (error) {
      stopped.add(blob.agent_id);
      out.push(isLedgerError(error, 'base_superseded')
        ? { ...base, recovered: false, superseded: true, error: supersededFinding(error.details.latest, error.details.reason, error.details.head) }
        : { ...base, recovered: false, error: error instanceof Error ? error.message : String(error) });
    }
  }
  return out;
}

/** A lost commit the ingest would refuse as built on another entry than its base (`findSupersededLost`). */
export interface SupersededLost {
  agent_id: string;
  sequence: number;
  kind: EntryKind;
  key: string;
  /** Doctor's finding, in the words `--repair` gives when the ingest refuses it. */
  finding: string;
}

/**
 * The lost commits (`chains`) that `--repair` would not re-ingest because the ingest refuses them as
 * `base_superseded` (ingest-base.ts `checkBuiltOnHead`, asked as the ingest asks it: the entry at the
 * delta's base sequence, a snapshot there when the agent's latest snapshot is at it) — a delta built on
 * the head another machine's snapshot then replaced, or on an entry a history restored from a backup went
 * past — and every blob that chains after one (built on it). Nothing readable depends on them: the head
 * and its history are whole without them; their blobs are kept and the machine that made them is told
 * at its next sync. Only an agent whose first lost commit is such a delta is looked at (a lost snapshot
 * before it changes the head `--repair` would fold it onto: `--repair` finds out). Reads the delta's
 * manifest and the head entry's manifest only.
 */
/**
 * What `findSupersededLost` reads of a ledger: the agent's latest sequences, one entry, a blob's bytes
 * and an entry's (checked). A data directory's (`ledgerSource`) or the storage seam's (the scale-out
 * doctor: lib/cli/commands/doctor.ts).
 */
export interface SupersededSource {
  agent(agentId: string): Promise<{ latest_sequence: number | null; latest_snapshot_seq: number | null } | null>;
  entryAt(agentId: string, seq: number, kind: EntryKind): Promise<LedgerEntryRow | null>;
  blob(key: string): Promise<Uint8Array>;
  entryBytes(entry: LedgerEntryRow): Promise<Uint8Array>;
}

/** A data directory's ledger as a `SupersededSource`. */
export function ledgerSource(ledger: Ledger): SupersededSource {
  const agentOf = ledger.db.sqlite.prepare('SELECT id, latest_sequence, latest_snapshot_seq FROM agents WHERE id = ?');
  const entryAt = ledger.db.sqlite.prepare('SELECT * FROM ledger_entries WHERE agent_id = ? AND seq = ? AND kind = ?');
  return {
    agent: async (agentId) => (agentOf.get(agentId) as { latest_sequence: number | null; latest_snapshot_seq: number | null } | undefined) ?? null,
    entryAt: async (agentId, seq, kind) => (entryAt.get(agentId, seq, kind) as LedgerEntryRow | undefined) ?? null,
    blob: (key) => ledger.blobs.get(key),
    entryBytes: (entry) => readEntryBytes({ ledger, entry }),
  };
}

export async function findSupersededLost(
  from: Ledger | SupersededSource, unledgered: readonly Pick<UnledgeredBlob, 'agent_id' | 'sequence' | 'kind' | 'key' | 'chains'>[],
): Promise<SupersededLost[]> {
  const source = 'db' in from ? ledgerSource(from) : from;
  const out: SupersededLost[] = [];
  for (const agentId of [...new Set(unledgered.filter((b) => b.chains).map((b) => b.agent_id))]) {
    const chain = unledgered.filter((b) => b.chains && b.agent_id === agentId);
    const first = chain[0]!;
    const agent = await source.agent(agentId);
    if (first.kind !== 'delta' || agent?.latest_sequence == null || first.sequence !== agent.latest_sequence + 1) continue;
    const base = agent.latest_sequence;
    const headKind = agent.latest_snapshot_seq === base ? 'snapshot' : 'delta';
    const head = await source.entryAt(agentId, base, headKind);
    if (!head) continue;
    let finding: string | null = null;
    try {
      const bytes = await source.blob(first.key);
      const limits = resolveLimits();
      const fromDelta = await readZipMember(bytes, DELTA_MANIFEST_FILE, limits);
      const manifestFile = fromDelta === null ? MANIFEST_FILE : DELTA_MANIFEST_FILE;
      const manifestBytes = fromDelta ?? await readZipMember(bytes, MANIFEST_FILE, limits);
      if (manifestBytes === null) continue;
      const manifest = parseManifest(manifestBytes, manifestFile);
      if (baseTimestampOf(manifest) === undefined) continue;
      const createdAt = await entryCreatedAt(await source.entryBytes(head), headKind);
      checkBuiltOnHead({ agentId, baseSequence: base, manifestFile, manifest, createdAt, head: headKind });
    } catch (error) {
      // Anything else (a damaged blob, a head whose blob is gone) is --repair's to find out and say.
      if (isLedgerError(error, 'base_superseded')) finding = supersededFinding(error.details.latest, error.details.reason, error.details.head);
    }
    if (finding === null) continue;
    out.push({ agent_id: agentId, sequence: first.sequence, kind: first.kind, key: first.key, finding });
    for (const later of chain.slice(1)) {
      out.push({
        agent_id: agentId, sequence: later.sequence, kind: later.kind, key: later.key,
        finding: `it continues the lost commit at sequence ${first.sequence}, which is not re-ingested (${first.kind} built on another entry than its base); its blob is kept`,
      });
    }
  }
  return out;
}

/**
 * What doctor says of a lost commit the ingest refused as `base_superseded` (ingest-base.ts): the
 * ingest's own words tell the syncing machine to restore the head and sync again, which is not for
 * whoever runs doctor.
 */
function supersededFinding(head: number | null | undefined, reason: string | undefined, kind: 'snapshot' | 'delta' | undefined): string {
  const built = kind === 'delta'
    ? `it was not built on the delta at sequence ${head ?? '?'} (that delta was made after its base: the agent's history went on `
      + 'from an earlier sequence, e.g. storage restored from a backup)'
    : `it was built on the head that the full snapshot at sequence ${head ?? '?'} replaced (a snapshot stored after its base: `
      + 'another machine\'s lineage sync --force-first-sync)';
  return `${built}${reason ? `: ${reason}` : ''}; re-ingested, its changes would be folded `
    + `onto ${kind === 'delta' ? 'an entry' : 'a snapshot'} they were not made from, so it is not; its blob is kept. The machine that made it is told so at its next `
    + 'lineage sync (lineage sync --rebase uploads its workspace onto the head)';
}

/**
 * An agent its owner deleted is never registered again by doctor (a backstop: its blobs are sorted out
 * as leftovers before): throws, so that agent's blob is reported as not recovered.
 */
export function refuseDeleted(agentId: string, deleted: readonly DeletedAgent[]): void {
  const deletion = deleted.find((d) => d.id === agentId);
  if (deletion) throw new Error(`agent ${agentId} was deleted at ${deletion.deleted_at}: it is not registered again from a blob it left`);
}

/**
 * Refuses a blob whose bytes are not those its key names (`<seq>-<sha256 prefix>`): damaged since it
 * was stored. Asked before an agent is registered again from it, which reads its manifest only.
 */
function checkKeySha(key: string, bytes: Uint8Array): void {
  const prefix = /\/\d+-([0-9a-f]{16})\.alf(?:-delta)?$/.exec(key)?.[1];
  if (prefix !== undefined && sha256Hex(bytes).slice(0, 16) !== prefix) {
    throw new Error(`the blob ${key} is damaged (its sha256 does not begin with ${prefix}): the agent is not registered again from it`);
  }
}

async function reRegister(ledger: Ledger, agentId: string, snapshotBytes: Uint8Array, now: Date): Promise<void> {
  registerAgent({ ledger, id: agentId, ...(await agentOfSnapshot(agentId, snapshotBytes)), tenantId: null, now });
}

/**
 * The name and runtime an agent whose registration was lost gets back, from its snapshot's manifest:
 * only `manifest.json` is inflated (zip-read.ts `readZipMember`, with the reader's caps and name checks;
 * a 50,000-record snapshot's partitions are tens of MB this never looks at), parsed and checked as
 * `readSnapshot` checks it (`parseManifest`: the same errors for a missing or malformed manifest). The
 * rest of the archive is the ingest's to check; a blob damaged past its manifest is told by its key's
 * sha256 before the agent is registered (`recoverUnledgered`).
 */
export async function agentOfSnapshot(agentId: string, snapshotBytes: Uint8Array): Promise<{ name: string; sourceRuntime: string | null }> {
  const limits = resolveLimits();
  const bytes = await readZipMember(snapshotBytes, MANIFEST_FILE, limits);
  if (bytes === null) {
    const hint = await readZipMember(snapshotBytes, DELTA_MANIFEST_FILE, limits) !== null ? ' (this is a .alf-delta, not a snapshot)' : '';
    throw new ArchiveError('missing_manifest', `archive has no ${MANIFEST_FILE}${hint}`);
  }
  const manifest = parseManifest(bytes, MANIFEST_FILE);
  const agent = isJsonObject(manifest.agent) ? manifest.agent : {};
  // A name the service would refuse to register (blank, a line break, too long) is not taken over: the id stands in.
  const name = typeof agent.name === 'string' && agentNameProblem(agent.name) === null ? agent.name : agentId;
  const runtime = typeof agent.source_runtime === 'string' && agentRuntimeProblem(agent.source_runtime) === null ? agent.source_runtime : null;
  return { name, sourceRuntime: runtime };
}
