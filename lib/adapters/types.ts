import type { AlfSnapshot } from '@/lib/core/archive/types';
import type { Clock } from '@/lib/core/clock';
import type { JsonObject } from '@/lib/core/json';
import type { MemoryRecord } from '@/lib/core/record';

export const RUNTIMES = ['openclaw', 'zeroclaw', 'hermes'] as const;
export type Runtime = (typeof RUNTIMES)[number];

export function isRuntime(value: string): value is Runtime {
  return (RUNTIMES as readonly string[]).includes(value);
}

export interface ExportOptions {
  /** The runtime's workspace or home directory. */
  workspace: string;
  /** ZeroClaw: `agents.alias` of the agent whose slice is exported. */
  runtimeAgent?: string;
  /** Persist a minted `.alf-agent-id` (false for dry runs). */
  persistAgentId: boolean;
  clock: Clock;
  /**
   * Called once the ALF agent id is known, before the store is read: a sync starts loading that
   * agent's base while the export runs.
   */
  onAgentId?: (agentId: string) => void;
  /**
   * Files the last sync exported whose stat data say they have not changed since (a sync's stat
   * cache): an adapter that supports it does not open them. Loaded once the agent id is known;
   * `context` is what else the adapter's per-file results depend on (a cache kept under another is not used).
   */
  unchanged?: (agentId: string, context: string) => Promise<UnchangedFiles | null>;
}

/** A file's stat data as git's index keeps them (nanosecond times). */
export interface FileStat {
  ino: bigint;
  size: bigint;
  mtimeNs: bigint;
  ctimeNs: bigint;
}

/** What a sync remembers of an exported file: its stat data and, if it bears records, its file-keys digest. */
export interface StatEntry extends FileStat {
  digest: string | null;
}

export interface UnchangedFiles {
  /** How many files the last export had. */
  readonly count: number;
  /** The entry of `rel` when `stat` says the file is unchanged since it was recorded (else null). */
  lookup(rel: string, stat: FileStat): StatEntry | null;
  /**
   * The bytes those files had, as the last sync exported them; rejects with `StaleStatCache` when
   * they cannot be had (the export then runs again, reading every file).
   */
  bytes(rels: readonly string[]): Promise<Map<string, Uint8Array>>;
}

/** The stat cache does not describe the base it would take bytes from. */
export class StaleStatCache extends Error {
  constructor(message = 'the stat cache does not describe the base') {
    super(message);
    this.name = 'StaleStatCache';
  }
}

/**
 * What an adapter reads from a store. Adapters never diff: reconcile decides identity.
 * `raw` is keyed by the path relative to the workspace (forward slashes), bytes exact.
 */
export interface ExportResult {
  runtime: Runtime;
  agentId: string;
  agentName: string;
  records: MemoryRecord[];
  raw: Map<string, Uint8Array>;
  /** identity / principals / credentials / attachments documents, when the adapter produces them. */
  layers: Partial<Record<'identity' | 'principals' | 'credentials' | 'attachments', JsonObject>>;
  excludedByAlfignore: number;
  warnings: string[];
}

/**
 * One record of an export for sync, in export order. `key` determines every field of the record
 * except the values of its `temporal` timestamps: two slots with the same key build records that
 * differ at most in those values. A record whose key the caller said it knows is not built
 * (`record` is null) unless `build()` is called; `build()` of a built one returns `record`.
 */
export interface RecordSlot {
  key: string;
  record: MemoryRecord | null;
  build(): MemoryRecord;
  /**
   * A built record's JSONL line, exactly `recordJson(record)`, made from what the export built it
   * from rather than by serializing the object (OpenClaw: the parts a file's records share are
   * serialized once per file). Only for `record` as built, unchanged since; absent when the slot
   * cannot say (the caller serializes the record).
   */
  json?(): string;
}

/**
 * Which record keys the caller knows (see RecordSlot), asked once the agent id is known: a sync
 * reads what it remembers of that agent's last sync meanwhile.
 */
export type KnownKeys = (agentId: string) => Promise<(key: string) => boolean>;

/**
 * The record keys of files an export chunked before, by the file's digest: an adapter's digest of
 * everything the keys of a file's records derive from (its key version, the agent, the file's path
 * and what the path decides, the file's bytes). A file whose digest is there has those keys, in
 * that order, without being chunked again.
 */
export type FileKeys = ReadonlyMap<string, readonly string[]>;

/** No file keys remembered. */
export const NO_FILE_KEYS: FileKeys = new Map();

/** The file keys the caller remembers for the agent (asked once its id is known), if any. */
export type KnownFileKeys = (agentId: string) => Promise<FileKeys>;

/** An export whose records come as slots (see {@link Adapter.exportSlots}). */
export interface SlotExport extends Omit<ExportResult, 'records'> {
  slots: RecordSlot[];
  /** The record-bearing files the slots come from, in slot order, with how many slots each has. */
  slotFiles?: { rel: string; count: number }[];
  /** Every record-bearing file's digest and keys (see {@link FileKeys}): what to remember for the next export. */
  fileKeys?: Map<string, readonly string[]>;
  /** Every exported file's stat entry, for the next export's `unchanged` (absent: the adapter keeps none). */
  fileStats?: Map<string, StatEntry>;
  /** The `context` those entries hold under (a token: no spaces). */
  statContext?: string;
  /**
   * Every file was found unchanged and none came or went: the export is the last one, and its
   * slots, raw files and layers are left empty (the caller has them in its base).
   */
  allUnchanged?: boolean;
}

export interface ImportOptions {
  snapshot: AlfSnapshot;
  /** Directory to write into (a fresh `--out` directory or a live workspace). */
  target: string;
  /** ZeroClaw: alias of the agent whose rows are replaced. */
  runtimeAgent?: string;
  /** Replace only that agent's rows in a live database (ZeroClaw), instead of writing a fresh one. */
  live: boolean;
  clock: Clock;
}

/**
 * What an import would write: the files it writes whole (workspace-relative, byte-exact; runtime
 * sidecars and control files excluded), and the database it creates or writes the agent's rows
 * into (workspace-relative), null when none.
 */
export interface PlannedWrites {
  files: Map<string, Uint8Array>;
  database: string | null;
}

export interface ImportResult {
  /** Workspace-relative paths written, sorted. */
  written: string[];
  memoryRecords: number;
  warnings: string[];
}

export interface Adapter {
  runtime: Runtime;
  exportWorkspace(opts: ExportOptions): Promise<ExportResult>;
  /**
   * The export with its records as slots, those with a key `known` accepts left unbuilt: a sync
   * that remembers what a key reconciled to last time needs nothing else of that record. Built,
   * they are the records `exportWorkspace` returns, in the same order. `fileKeys`: the keys of
   * files seen before, which need not be chunked again for them.
   */
  exportSlots?(opts: ExportOptions, known: KnownKeys, fileKeys?: KnownFileKeys): Promise<SlotExport>;
  importSnapshot(opts: ImportOptions): Promise<ImportResult>;
  /** What `importSnapshot` with these options would write, without writing anything. */
  plannedWrites(opts: ImportOptions): Promise<PlannedWrites>;
  /** Workspace-relative paths that count as "memory exists here" for the restore decision. */
  memoryPresent(workspace: string, runtimeAgent?: string): Promise<boolean>;
}
