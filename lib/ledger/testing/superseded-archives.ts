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
