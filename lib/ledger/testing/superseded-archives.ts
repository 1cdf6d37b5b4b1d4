/**
 * The archives the superseded-base races are made of (lib/ledger/ingest-base.test.ts on the
 * embedded ledger, lib/storage/pg/superseded-race.test.ts on PostgreSQL): a snapshot of one raw
 * file made at `createdAt`, and a delta of one raw file on `base` whose `sync.base_timestamp` (and
 * `created_at`) is `baseTimestamp`.
 */
import { writeDelta, writeSnapshot } from '@/lib/core/archive';

export function supersedeArchives(agentId: string) {
  const snapshot = (createdAt: string, content: string) => writeSnapshot({
    manifest: { alf_version: '1.0.0', created_at: createdAt, agent: { id: agentId, name: 'race', source_runtime: 'openclaw' }, layers: {} },
    records: [], layers: {}, raw: new Map([['raw/openclaw/MEMORY.md', Buffer.from(content)]]), extra: new Map(),
  });
  const delta = (base: number, baseTimestamp: string, n: number) => writeDelta({
    manifest: {
      alf_version: '1.0.0', created_at: baseTimestamp, agent: { id: agentId, source_runtime: 'openclaw' },
      sync: { base_sequence: base, new_sequence: 0, base_timestamp: baseTimestamp }, changes: {},
    },
    entries: [], layers: {}, rawChanged: new Map([[`raw/openclaw/memory/day-${n}.md`, Buffer.from(`## Day ${n}\n`)]]), rawDeleted: [],
  });
  return { snapshot, delta };
}

/**
 * Records the key of every `get` through `blobs` (the store itself, its reads unchanged): what the
 * superseded-base tests count to show the rule reads the entry row's `manifest_created_at`, not the
 * head's blob. Returns the keys read so far (live) and a function putting `get` back.
 */
export function recordBlobReads(blobs: { get(key: string): Promise<Uint8Array> }): { reads: string[]; restore: () => void } {
  const reads: string[] = [];
  const original = blobs.get;
  blobs.get = function get(this: unknown, key: string) {
    reads.push(key);
    return original.call(this, key);
  };
  return { reads, restore: () => { blobs.get = original; } };
}
