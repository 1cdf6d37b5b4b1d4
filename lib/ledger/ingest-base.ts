/**
 * Whether a delta was built on the head it would be folded onto, where the sequence alone cannot
 * say so: both ingests (ingest.ts and lib/storage/pg/ingest.ts) ask it.
 *
 * The sequence check takes any delta whose `base_sequence` is the agent's latest. That is not
 * enough when the entry at that sequence is not the one the delta was cut from:
 * - a snapshot does not advance the sequence (CONTRACT §1.3): machine B's `--force-first-sync` (or
 *   a rollover) stored after machine A's delta at sequence N is stored at N too, and becomes the
 *   head there, while A's next delta still names `base_sequence` N;
 * - a server restored from a backup taken at sequence M goes on from M: another machine's deltas
 *   then reach N again, while a machine whose state is at N from before the restore names N too.
 * Folded onto a head it was not cut from, the head's records would be that head's with this delta's
 * operations on top while the files it carries are its own base's, and search and the workspace
 * would disagree. The delta manifest's `sync.base_timestamp` (CONTRACT §3.2: the client's
 * `last_synced_at`, the time its base became its own) tells them apart: the entry at the delta's
 * base sequence — whatever its kind — was made (its manifest's `created_at`: a delta's
 * `delta-manifest.json`, a snapshot's `manifest.json`) no later than the moment a machine built on
 * it made it its base (its own upload: the same clock, the same `now` or later; a restore or rebase
 * onto it: later, or that `created_at` itself, restore.ts `syncedAtOnto`). A delta whose
 * `base_timestamp` is older was built on another entry, and is refused (`base_superseded`,
 * answered as the stale base's 409 with `X-Latest-Sequence`).
 *
 * A delta without `base_timestamp` cannot be told apart and is taken, as before. The two times are
 * two machines' clocks: a clock far enough ahead of the head maker's lets a stale delta through
 * (as before), one far enough behind (a client that records its own clock's time on a restore, not
 * `syncedAtOnto`'s) refuses a delta built on the head until its next restore or rebase is later
 * than that entry's `created_at`.
 */
import { parseRfc3339 } from '@/lib/core/archive/partitions';
import { isJsonObject, type JsonObject, type JsonValue } from '@/lib/core/json';
import { readZipMember, resolveLimits } from '@/lib/core/archive/zip-read';
import { DELTA_MANIFEST_FILE, MANIFEST_FILE } from '@/lib/core/archive';
import type { ArchiveLimits } from '@/lib/core/archive/types';
import { LedgerError } from './errors';

/** An RFC 3339 time as an instant: whole UTC milliseconds of its second and the nanoseconds past it; null if not one. */
export function instantOf(text: string): { ms: number; nanos: number } | null {
  const ms = parseRfc3339(text);
  if (ms === null) return null;
  const fraction = /^[^.]*\.(\d+)/.exec(text.slice(0, 40))?.[1] ?? '';
  return { ms, nanos: Number(fraction.slice(0, 9).padEnd(9, '0')) };
}

/** Which of two RFC 3339 times is earlier, to the nanosecond, whatever their offsets: < 0, 0 or > 0; null if either is not one. */
export function compareTimes(a: string, b: string): number | null {
  const x = instantOf(a);
  const y = instantOf(b);
  if (x === null || y === null) return null;
  return x.ms !== y.ms ? x.ms - y.ms : x.nanos - y.nanos;
}

/** The delta manifest's `sync.base_timestamp`, when it gives one. */
export function baseTimestampOf(manifest: JsonObject): string | undefined {
  const sync = isJsonObject(manifest.sync) ? manifest.sync : {};
  const value: JsonValue | undefined = sync.base_timestamp;
  return typeof value === 'string' ? value : undefined;
}

/** The `created_at` of a manifest's bytes, or null. */
function createdAtOf(manifest: Uint8Array | null): string | null {
  if (!manifest) return null;
  const parsed: unknown = JSON.parse(Buffer.from(manifest.buffer, manifest.byteOffset, manifest.byteLength).toString('utf8'));
  const createdAt = isJsonObject(parsed as JsonValue) ? (parsed as JsonObject).created_at : undefined;
  return typeof createdAt === 'string' ? createdAt : null;
}

/**
 * A stored snapshot's `manifest.json` `created_at`, or null (its ingest checked it: a time). Read
 * with the ingest's limits, which took it; only the manifest is inflated (a 50,000-record
 * snapshot's partitions are tens of MB the check never looks at).
 */
export async function snapshotCreatedAt(bytes: Uint8Array, limits?: Partial<ArchiveLimits>): Promise<string | null> {
  return createdAtOf(await readZipMember(bytes, MANIFEST_FILE, resolveLimits(limits)));
}

/**
 * A stored entry's manifest `created_at`, or null: a snapshot's `manifest.json`, a delta's
 * `delta-manifest.json` (or the `manifest.json` an older writer named it, as read-delta.ts reads
 * it). Only that member is inflated.
 */
export async function entryCreatedAt(bytes: Uint8Array, kind: 'snapshot' | 'delta', limits?: Partial<ArchiveLimits>): Promise<string | null> {
  if (kind === 'snapshot') return snapshotCreatedAt(bytes, limits);
  const resolved = resolveLimits(limits);
  return createdAtOf(await readZipMember(bytes, DELTA_MANIFEST_FILE, resolved) ?? await readZipMember(bytes, MANIFEST_FILE, resolved));
}

/**
 * A parsed manifest's `created_at` as it has it, or null: what `entryCreatedAt` reads back from the
 * stored bytes (the same member, `JSON.parse`d the same way), written on the entry's row
 * (`ledger_entries.manifest_created_at`) by the append so the rule needs no blob read.
 */
export function manifestCreatedAt(manifest: JsonObject): string | null {
  const createdAt = manifest.created_at;
  return typeof createdAt === 'string' ? createdAt : null;
}

/** What `headCreatedAt` needs of the entry at the base sequence (either backend's row). */
export interface HeadEntry {
  id: string;
  kind: 'snapshot' | 'delta';
  manifest_created_at: string | null;
}

/**
 * The `created_at` of the entry at a delta's base sequence: its row's `manifest_created_at`, written
 * by its append. An entry appended before that column (NULL: an older data directory or database)
 * has its blob read (`readBytes`) and its manifest inflated, as before; the value read is returned
 * as `fill` too, for the delta's append to write on that row in its own transaction (the blob is
 * immutable and named by the entry's id, so the value can never go stale). A manifest without a
 * string `created_at` stays NULL and is read each time (no such archive is uploaded by our writers).
 */
export async function headCreatedAt(entry: HeadEntry, readBytes: () => Promise<Uint8Array>, limits?: Partial<ArchiveLimits>):
Promise<{ createdAt: string | null; fill?: { entryId: string; createdAt: string } }> {
  if (entry.manifest_created_at !== null) return { createdAt: entry.manifest_created_at };
  const createdAt = await entryCreatedAt(await readBytes(), entry.kind, limits);
  return createdAt === null ? { createdAt } : { createdAt, fill: { entryId: entry.id, createdAt } };
}

/** The kind of the entry at the base sequence a refused delta was not built on. */
export type HeadKind = 'snapshot' | 'delta';

/**
 * The refusal of a delta not built on the entry at its base sequence (`baseSequence` stays the
 * latest): a snapshot that replaced the head there (`head` 'snapshot', the default), or a delta there
 * made after this delta's base (`head` 'delta': the agent's history went on from an older point, a
 * server restored from a backup, and reached this sequence again).
 */
export function supersededBase(args: { agentId: string; baseSequence: number; manifestFile: string; baseTimestamp?: string; createdAt?: string; head?: HeadKind }): LedgerError {
  const head = args.head ?? 'snapshot';
  const headManifest = head === 'snapshot' ? 'manifest.json' : 'delta-manifest.json';
  const which = args.baseTimestamp !== undefined && args.createdAt !== undefined
    ? `its ${args.manifestFile} sync.base_timestamp ${args.baseTimestamp} is older than that ${head}'s ${headManifest} created_at ${args.createdAt}`
    : 'that snapshot was stored while this delta was being ingested';
  const what = head === 'snapshot'
    ? 'is a full snapshot uploaded after the base this delta was built on'
    : 'is a delta made after the base this delta was built on (the agent\'s history went on from an earlier sequence, e.g. storage restored from a backup, and reached this sequence again)';
  return new LedgerError('base_superseded',
    `the head of agent ${args.agentId} at sequence ${args.baseSequence} ${what} `
    + `(${which}); nothing was stored: take the head at sequence ${args.baseSequence} as the base (restore it) and sync again`,
    { latest: args.baseSequence, reason: which, head });
}

/**
 * Refuses (`base_superseded`) a delta whose `base_timestamp` is older than `createdAt`, the
 * `created_at` of the entry (of kind `head`) at its base sequence. A delta without
 * `base_timestamp`, or a time that is not one, is taken: it cannot be told apart.
 */
export function checkBuiltOnHead(args: { agentId: string; baseSequence: number; manifestFile: string; manifest: JsonObject; createdAt: string | null; head?: HeadKind }): void {
  const baseTimestamp = baseTimestampOf(args.manifest);
  if (baseTimestamp === undefined || args.createdAt === null) return;
  const order = compareTimes(baseTimestamp, args.createdAt);
  if (order !== null && order < 0) {
    throw supersededBase({ agentId: args.agentId, baseSequence: args.baseSequence, manifestFile: args.manifestFile, baseTimestamp, createdAt: args.createdAt, head: args.head });
  }
}
