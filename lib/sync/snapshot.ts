import type { ExportResult } from '@/lib/adapters/types';
import { toArchiveRaw } from '@/lib/adapters/shared';
import type { AlfSnapshot } from '@/lib/core/archive/types';
import type { JsonObject } from '@/lib/core/json';
import type { MemoryRecord } from '@/lib/core/record';

export const ALF_VERSION = '1.0.0';

/**
 * The `.alf` an adapter export becomes (no `sync` block: adapter exports carry none), with its
 * records or the ones given (a sync's reconciled records).
 */
export function snapshotFromExport(exported: Omit<ExportResult, 'records'>, now: Date, records: MemoryRecord[]): AlfSnapshot {
  const manifest: JsonObject = {
    alf_version: ALF_VERSION,
    created_at: now.toISOString(),
    agent: { id: exported.agentId, name: exported.agentName, source_runtime: exported.runtime },
    layers: {},
    // Declared even when the workspace has no raw file, as the reference adapters do.
    raw_sources: [exported.runtime],
  };
  return {
    manifest,
    records,
    layers: { ...exported.layers },
    raw: toArchiveRaw(exported.raw, exported.runtime),
    extra: new Map(),
  };
}
