/**
 * The one asynchronous storage seam of issue 21: everything the service, the dashboard and the CLI
 * read and write — ledger append with its atomic sequence check, the history index's writes and
 * query verbs, the rebuild, keys and tenants, pending uploads — behind one interface with two
 * implementations: `embedded` (today's SQLite + filesystem code, embedded.ts) and `scale-out`
 * (PostgreSQL + S3, scale-out.ts). Both give the same answers (conformance.test.ts). A session is a
 * signed cookie checked against its key and the sessions ended by sign-out (`sessionKeyIdentity`).
 *
 * Parameters and results are those of today's synchronous verbs (same names, same shapes), minus
 * their `db`/`ledger` handle, so a caller switches over by awaiting the storage's verb instead.
 */
import type { AgentRow, EntryKind, LedgerEntryRow, RecordOp } from '@/db/schema';
import type { SchemaNewer } from '@/db/newer-schema';
import type { ArchiveLimits } from '@/lib/core/archive/types';
import type { BlobStore } from '@/lib/ledger/blob-store';
import type { IngestResult } from '@/lib/ledger/ingest';
import type { DeletedAgent, TenantScope } from '@/lib/ledger/agents';
import type { LeftoverRemoval } from '@/lib/ledger/consistency';
import type { RestorePlan } from '@/lib/ledger/entries';
import type { AlfSnapshot } from '@/lib/core/archive/types';
import type { SequencedDelta } from '@/lib/core/restore';
import type { MemoryRecordDto } from '@/lib/history/queries/memory-dto';
import type { AgentWithStats } from '@/lib/history/queries/agents';
import type { IndexNotice } from '@/lib/history/pending-index';
import type { ChangeGroup, FeedSince } from '@/lib/history/queries/changes';
import type { SequenceDetail, SequenceItem } from '@/lib/history/queries/sequences';
import type { SequenceRawPage } from '@/lib/history/queries/sequence-raw';
import type { SequenceOp } from '@/lib/history/queries/sequence-ops';
import type { RecordFilters, RecordSort, RecordsAtResult } from '@/lib/history/queries/records';
import type { RecordLineage } from '@/lib/history/queries/lineage';
import type { VersionOrder } from '@/lib/history/queries/lineage-versions';
import type { WorkspaceFileInfo } from '@/lib/history/queries/workspace';
import type { DownloadFile } from '@/lib/history/queries/workspace-pages';
import type { SearchResult } from '@/lib/history/search/engine';
import type { WorkspaceComparison } from '@/lib/history/queries/compare';
import type { FileBlame } from '@/lib/history/queries/blame';
import type { DatabaseRecordsResult } from '@/lib/history/queries/database-records';
import type { HandOver, IssuedApiKey, KeyIdentity } from '@/lib/server/api-keys';
import type { PendingUpload } from '@/lib/server/upload-store';

export type { TenantScope };

export interface IngestParams {
  agentId: string;
  bytes: Uint8Array;
  now: Date;
  limits?: Partial<ArchiveLimits>;
  tenantId?: string | null;
  /**
   * A large upload: the embedded backend parses, checks and indexes it on its ingest thread so the
   * event loop keeps serving (issue 18 §5); the scale-out backend's I/O is asynchronous anyway.
   */
  offThread?: boolean;
}

export interface RebuildSummary {
  entries: number;
  record_versions: number;
}

/** Presigned-style uploads between initiate and confirm (embedded: `<data>/uploads/`; scale-out: a table + the staging prefix). */
export interface PendingUploads {
  create(input: Omit<PendingUpload, 'id'>): Promise<PendingUpload>;
  get(id: string): Promise<PendingUpload | null>;
  putBytes(id: string, bytes: Uint8Array): Promise<void>;
  /**
   * The uploaded bytes, or null when nothing was PUT yet. With `maxBytes` the size is checked
   * before the bytes are read (scale-out: from the answer to one ranged GET of at most
   * `maxBytes + 1`) and a larger upload is refused `invalid_input`: a presigned PUT cannot cap the size.
   */
  readBytes(id: string, limits?: { maxBytes: number }): Promise<Uint8Array | null>;
  /**
   * Where the client PUTs the bytes of upload `id`: a presigned S3 PUT into the staging prefix
   * (scale-out), or null when the server hands out its own signed URL and takes the PUT (embedded).
   */
  uploadUrl(id: string, expiresInSeconds: number): Promise<string | null>;
  markConfirmed(upload: PendingUpload, confirmed: NonNullable<PendingUpload['confirmed']>): Promise<void>;
  /**
   * Runs `task` while no other process runs one for upload `id` (a confirm): scale-out, an advisory
   * lock on PostgreSQL, since the same confirm may reach two server processes; embedded, one
   * process serves a data directory and the server's own map joins concurrent confirms.
   */
  exclusive<T>(id: string, task: () => Promise<T>): Promise<T>;
  remove(id: string): Promise<void>;
  removeAgent(agentId: string): Promise<number>;
  sweep(now: Date, graceMs?: number): Promise<void>;
}

export interface LineageStorage {
  readonly backend: 'embedded' | 'scale-out';
  readonly blobs: BlobStore;
  readonly uploads: PendingUploads;
  /**
   * Where a client downloads ledger blob `key` (a restore's snapshot and deltas): a presigned S3 GET
   * (scale-out, `LINEAGE_S3_DOWNLOADS=presigned`, the default), or null when the server streams the
   * bytes itself behind its own signed URL (embedded, or `proxied` when clients cannot reach the bucket).
   */
  blobDownloadUrl(p: { key: string; expiresInSeconds: number }): Promise<string | null>;

  // ---- agents (tenants are API key ids) ----
  /** `'exists'` when the id is taken, or another tenant deleted it (lib/ledger/agents.ts `deletedElsewhere`). */
  registerAgent(p: { id: string; name: string; sourceRuntime: string | null; tenantId: string | null; now: Date }): Promise<AgentRow | 'exists'>;
  getAgent(p: { agentId: string; tenantId?: TenantScope }): Promise<AgentRow | null>;
  listAgents(p: { tenantId?: TenantScope }): Promise<AgentRow[]>;
  /** Removes the agent, its ledger, its index rows and its blobs (pending uploads: `uploads.removeAgent`). */
  /** `onlyIfEmpty`: refused (`agent_not_empty`, nothing deleted) when the agent holds an entry, judged inside the delete's transaction. */
  deleteAgent(p: { agentId: string; tenantId?: TenantScope; now?: Date; onlyIfEmpty?: boolean }): Promise<{ deleted: true; objects_removed: number }>;
  /**
   * Every deleted agent (the deletion is recorded with the row's removal) and the blob keys its deletions
   * removed: what `lineage doctor` tells an interrupted delete's leftovers by, and `lineage migrate` copies.
   */
  listDeletedAgents(): Promise<DeletedAgent[]>;
  /**
   * `lineage doctor --repair`: removes blobs a deleted agent left (`keys`, found unreferenced), each looked
   * at again under the lock that holds off the id's registration and its uploads' blob writes until they
   * are gone (a key an entry names by then is left out of the answer).
   */
  removeLeftovers(p: { agentId: string; keys: readonly string[] }): Promise<LeftoverRemoval[]>;

  // ---- the ledger: append with the atomic sequence check, indexed in the same commit ----
  ingestSnapshot(p: IngestParams): Promise<IngestResult>;
  ingestDelta(p: IngestParams & { baseSequence: number }): Promise<IngestResult>;
  listEntries(p: { agentId: string; sinceSeq?: number; upToSeq?: number; kind?: EntryKind }): Promise<LedgerEntryRow[]>;
  /** One entry of an agent by its id, or null. */
  getEntry(p: { agentId: string; entryId: string }): Promise<LedgerEntryRow | null>;
  /** Snapshot + deltas reaching `upToSequence` (default latest); `never_synced` / `sequence_out_of_range`. */
  restorePlan(p: { agentId: string; upToSequence?: number; tenantId?: TenantScope }): Promise<RestorePlan>;
  /** An entry's stored bytes, checked against its sha256 (`blob_corrupt` otherwise). */
  readEntryBytes(p: { entry: Pick<LedgerEntryRow, 'blob_key' | 'sha256' | 'agent_id' | 'seq' | 'kind'> }): Promise<Uint8Array>;
  /** A plan's snapshot and deltas parsed, ready for the restore fold. */
  readPlanArchives(p: { plan: RestorePlan }): Promise<{ base: AlfSnapshot; baseSequence: number; deltas: SequencedDelta[] }>;
  /** Wipes and replays the whole history index from the ledger's blobs (one rebuild at a time). */
  rebuildIndex(): Promise<RebuildSummary>;

  // ---- the history index's query verbs ----
  listAgentsWithStats(p: { tenantId?: TenantScope; now: Date }): Promise<AgentWithStats[]>;
  getAgentWithStats(p: { agentId: string; tenantId?: TenantScope; now: Date }): Promise<AgentWithStats | null>;
  /**
   * Why the agent's history index stops short of its ledger, when that lasts (lib/history/pending-index.ts
   * `indexNotice`: an entry stored and not foldable — a damaged blob, a failed catch-up); null otherwise, and
   * for an agent not in `tenantId`'s scope. The scale-out backend folds every entry in its ingest's own
   * transaction (pg/ingest.ts): nothing of it is ever pending, and it answers null.
   */
  indexNotice(p: { agentId: string; tenantId?: TenantScope }): Promise<IndexNotice | null>;
  /** The agent's live records as MemoryRecordDto (birth order); null for an unknown agent. */
  getAgentMemoryDto(p: { agentId: string; tenantId?: TenantScope }): Promise<MemoryRecordDto[] | null>;
  getSequences(p: { agentId: string; before?: number; limit?: number; tenantId?: TenantScope }): Promise<{ items: SequenceItem[]; next_before: number | null } | null>;
  /**
   * With `opsLimit`: the first page of each op kind, `op_cursors` page on through `getSequenceOps`; with
   * `rawLimit`: the first page of raw files, `raw_cursor` pages on through `getSequenceRaw`.
   */
  getSequence(p: { agentId: string; seq: number; tenantId?: TenantScope; opsLimit?: number; rawLimit?: number }): Promise<SequenceDetail | null>;
  /** One keyset page of a sequence's raw files, linked to the first `opsLimit` ops of each kind; null for an unknown agent. */
  getSequenceRaw(p: { agentId: string; seq: number; limit?: number; cursor?: string; opsLimit?: number; tenantId?: TenantScope }):
    Promise<SequenceRawPage | null>;
  /** One keyset page of a sequence's ops of one kind; null for an unknown agent. */
  getSequenceOps(p: { agentId: string; seq: number; op: RecordOp; limit?: number; cursor?: string; tenantId?: TenantScope }):
    Promise<{ op: RecordOp; items: SequenceOp[]; next_cursor: string | null } | null>;
  sequenceAt(p: { agentId: string; time: Date; tenantId?: TenantScope }): Promise<{ sequence: number; synced_at: string } | null>;
  getRecordsAt(p: { agentId: string; at?: number; limit?: number; cursor?: string; sort?: RecordSort; tenantId?: TenantScope } & RecordFilters):
    Promise<RecordsAtResult | null>;
  /** Without `limit`/`cursor`/`order`: every version; with them, one keyset page (`next_cursor`, `before`). */
  getRecordLineage(p: { agentId: string; recordId: string; tenantId?: TenantScope; limit?: number; cursor?: string; order?: VersionOrder }):
    Promise<RecordLineage | null>;
  getChanges(p: { tenantId?: TenantScope; since: FeedSince; now?: Date; agentId?: string; op?: RecordOp; limit?: number; cursor?: string }):
    Promise<{ since: string; groups: ChangeGroup[]; truncated: boolean; next_cursor: string | null }>;
  getWorkspaceTree(p: { agentId: string; seq: number; tenantId?: TenantScope }): Promise<{ seq: number; files: WorkspaceFileInfo[] } | null>;
  getWorkspaceFile(p: { agentId: string; seq: number; path: string; tenantId?: TenantScope }): Promise<Uint8Array | null>;
  /** The files of a workspace download at `seq` (path order, a page at a time); null for an unknown agent. */
  downloadFiles(p: { agentId: string; seq: number; tenantId?: TenantScope; pageSize?: number }): Promise<AsyncIterable<DownloadFile[]> | null>;
  search(p: { q: string; agentId?: string; tenantId?: TenantScope; limit?: number; offset?: number }): Promise<SearchResult>;
  /**
   * The net change of the workspace from `from` to `to` (memories created, updated, deleted, moved;
   * files added, changed, removed; `limit` per kind). Null for an unknown agent; a reversed range is
   * `invalid_input`, a sequence past the latest `sequence_out_of_range`, both in words.
   */
  compareWorkspace(p: { agentId: string; from: number; to: number; limit?: number; tenantId?: TenantScope }): Promise<WorkspaceComparison | null>;
  /** The blame of one file at `seq`; null for an unknown agent or a path not in the workspace then. */
  getFileBlame(p: { agentId: string; seq: number; path: string; tenantId?: TenantScope }): Promise<FileBlame | null>;
  /** A ZeroClaw or Hermes agent's database rows at `seq`, a keyset page at a time (none for OpenClaw); null for an unknown agent. */
  getDatabaseRecords(p: { agentId: string; seq: number; limit?: number; cursor?: string; tenantId?: TenantScope }): Promise<DatabaseRecordsResult | null>;

  // ---- API keys ----
  createApiKey(p: { name?: string; now: Date; admin?: boolean }): Promise<IssuedApiKey>;
  listApiKeys(): Promise<{ id: string; name: string; created_at: string; admin: boolean }[]>;
  countApiKeys(): Promise<number>;
  revokeApiKey(p: { id: string }): Promise<boolean>;
  /** Every agent (and deleted agent's id) of tenant `from` — a key, or one revoked since — becomes key `to`'s; with `revoke`, `from` is revoked in the same transaction. */
  handOverAgents(p: { from: string; to: string; revoke?: boolean }): Promise<HandOver>;
  /** A new key (same name, same admin flag) takes the agents of key `id`, which is revoked: null when `id` is no key. */
  rotateApiKey(p: { id: string; now: Date }): Promise<(IssuedApiKey & { agents: string[] }) | null>;
  identifyKey(p: { key: string }): Promise<KeyIdentity | null>;
  keyIdentityById(id: string): Promise<KeyIdentity | null>;
  /** The key of a dashboard session, or null once the key was revoked or the session ended (sign-out). */
  sessionKeyIdentity(p: { keyId: string; sessionId: string }): Promise<KeyIdentity | null>;
  /** Sign-out: the session refused from now until `expiresAt` (unix seconds); sessions ended and since expired are forgotten. */
  endSession(p: { sessionId: string; expiresAt: number; now: Date }): Promise<void>;

  /**
   * The background upkeep of a serving process, until `stop`: expired pending uploads swept (both);
   * embedded also checkpoints the WAL on its own thread and sweeps orphan blobs of crashed uploads.
   */
  startMaintenance(p: { log: (line: string) => void; clock: () => Date; intervalMs?: number }): { stop(): Promise<void> };

  /**
   * Whether a newer lineage migrated the database since it was opened (a migration this version does
   * not know is recorded): a serving process then answers everything `schema_newer` (lib/server/schema-guard.ts).
   */
  newerSchema(): Promise<SchemaNewer | null>;

  close(): Promise<void>;
}
