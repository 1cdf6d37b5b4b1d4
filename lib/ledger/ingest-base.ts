/**
 * Whether a delta was built on the head it would be folded onto, where the sequence alone cannot
 * say so: both ingests (ingest.ts and lib/storage/pg/ingest.ts) ask it.
 *
 * A snapshot does not advance the sequence (CONTRACT §1.3): machine B's `--force-first-sync` (or a
 * rollover) stored after machine A's delta at sequence N is stored at N too, and becomes the head
 * there. A's next delta still names `base_sequence` N — the sequence check takes it — but it was cut
 * from A's own base (A's delta at N), not from B's snapshot: folded onto B's snapshot, the head's
 * records would be B's with A's operations on top while the files A's delta carries are A's, and
 * search and the workspace would disagree. The delta manifest's `sync.base_timestamp` (CONTRACT §3.2:
 * the client's `last_synced_at`, the time its base became its own) tells the two apart: a delta
 * built on B's snapshot has one no earlier than that snapshot's `manifest.json` `created_at` (B's
 * own next delta: the same clock, the same or a later time; a machine that restored or rebased on
 * the head: later); one older was built on the head the snapshot replaced, and is refused
 * (`base_superseded`, answered as the stale base's 409 with `X-Latest-Sequence`).
 *
 * A delta without `base_timestamp` cannot be told apart and is taken, as before. The two times are
 * two machines' clocks: a clock far enough ahead of the snapshot maker's lets a stale delta through
 * (as before), one far enough behind refuses a delta built on the head until its next restore or
 * rebase is later than that snapshot's `created_at`.
 */
import { parseRfc3339 } from '@/lib/core/archive/partitions';
import { isJsonObject, type JsonObject, type JsonValue } from '@/lib/core/json';
import { readZipMember, resolveLimits } from '@/lib/core/archive/zip-read';
import { MANIFEST_FILE } from '@/lib/core/archive';
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

/**
 * A stored snapshot's `manifest.json` `created_at`, or null (its ingest checked it: a time). Read
 * with the ingest's limits, which took it; only the manifest is inflated (a 50,000-record
 * snapshot's partitions are tens of MB the check never looks at).
 */
export async function snapshotCreatedAt(bytes: Uint8Array, limits?: Partial<ArchiveLimits>): Promise<string | null> {
  const manifest = await readZipMember(bytes, MANIFEST_FILE, resolveLimits(limits));
  if (!manifest) return null;
  const parsed: unknown = JSON.parse(Buffer.from(manifest.buffer, manifest.byteOffset, manifest.byteLength).toString('utf8'));
  const createdAt = isJsonObject(parsed as JsonValue) ? (parsed as JsonObject).created_at : undefined;
  return typeof createdAt === 'string' ? createdAt : null;
}

/** The refusal of a delta built on the head a snapshot replaced at its base sequence (`baseSequence` stays the latest). */
export function supersededBase(args: { agentId: string; baseSequence: number; manifestFile: string; baseTimestamp?: string; createdAt?: string }): LedgerError {
  const which = args.baseTimestamp !== undefined && args.createdAt !== undefined
    ? `its ${args.manifestFile} sync.base_timestamp ${args.baseTimestamp} is older than that snapshot's manifest.json created_at ${args.createdAt}`
    : 'that snapshot was stored while this delta was being ingested';
  return new LedgerError('base_superseded',
    `the head of agent ${args.agentId} at sequence ${args.baseSequence} is a full snapshot uploaded after the base this delta was built on `
    + `(${which}); nothing was stored: take the head at sequence ${args.baseSequence} as the base (restore it) and sync again`,
    { latest: args.baseSequence, reason: which });
}

/**
 * Refuses (`base_superseded`) a delta whose `base_timestamp` is older than `createdAt`, the
 * `created_at` of the snapshot that replaced the head at its base sequence. A delta without
 * `base_timestamp`, or a time that is not one, is taken: it cannot be told apart.
 */
export function checkBuiltOnHead(args: { agentId: string; baseSequence: number; manifestFile: string; manifest: JsonObject; createdAt: string | null }): void {
  const baseTimestamp = baseTimestampOf(args.manifest);
  if (baseTimestamp === undefined || args.createdAt === null) return;
  const order = compareTimes(baseTimestamp, args.createdAt);
  if (order !== null && order < 0) {
    throw supersededBase({ agentId: args.agentId, baseSequence: args.baseSequence, manifestFile: args.manifestFile, baseTimestamp, createdAt: args.createdAt });
  }
}
