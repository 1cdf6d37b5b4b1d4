/**
 * Archives shaped as the reference CLI sends them: the first sync's full `.alf` of a workspace (the
 * reference's standard OpenClaw fixture, exported and written by our writer, every entry Deflated),
 * and a record-only `.alf-delta` — `memory/delta.jsonl` and `delta-manifest.json`, no raw channel,
 * `new_sequence` 0 — as CLIs before 0.1.10 send after a session.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import { getAdapter } from '@/lib/adapters';
import { writeDelta, writeSnapshot } from '@/lib/core/archive';
import type { DeltaEntry } from '@/lib/core/archive/types';
import type { MemoryRecord } from '@/lib/core/record';
import { snapshotFromExport } from '@/lib/sync/snapshot';

export const CLOCK = () => new Date('2026-06-01T00:00:00Z');
/** The section the record-only delta adds to MEMORY.md, and the daily file whose every section it deletes. */
export const NEW_SECTION = '## Fact 3\nThe gateway moved to 10.20.0.9.';
export const DELETED_FILE = 'memory/2026-01-16.md';

/** The reference standard OpenClaw fixture, copied into `dir` and exported. */
export async function standardWorkspace(dir: string) {
  await fs.cp(path.resolve(process.cwd(), '../shared/alf/fixtures/openclaw/standard'), dir, { recursive: true });
  await fs.chmod(dir, 0o755);
  const exported = await getAdapter('openclaw').exportWorkspace({ workspace: dir, persistAgentId: true, clock: CLOCK });
  const snapshot = snapshotFromExport(exported, CLOCK(), exported.records);
  return { exported, snapshot, bytes: await writeSnapshot(snapshot) };
}

/** The manifest the reference's DeltaWriter starts from (CONTRACT §3.2). */
function deltaManifest(agentId: string, baseSequence: number) {
  return {
    alf_version: '1.0.0',
    created_at: CLOCK().toISOString(),
    agent: { id: agentId, source_runtime: 'openclaw' },
    sync: { base_sequence: baseSequence, new_sequence: 0 },
    changes: {},
  };
}

/**
 * The record-only delta of a session that added "Fact 3" to MEMORY.md and deleted
 * memory/2026-01-16.md: one create, a delete per section of that file (each carrying the previous
 * record), no raw file at all.
 */
export async function recordOnlyDelta(records: readonly MemoryRecord[], agentId: string, baseSequence: number): Promise<Uint8Array> {
  const curated = records.find((r) => r.namespace === 'curated');
  if (!curated) throw new Error('the standard fixture has a curated record');
  const created: MemoryRecord = {
    ...curated,
    id: '6f2b8c1e-0000-5000-8000-00000000f003',
    content: NEW_SECTION,
    raw_source_format: { heading: 'Fact 3', line_start: 100, line_end: 101 },
  };
  const entries: DeltaEntry[] = [
    { operation: 'create', record: created },
    ...records.filter((r) => r.source.origin_file === DELETED_FILE).map((record) => ({ operation: 'delete' as const, record })),
  ];
  return writeDelta({ manifest: deltaManifest(agentId, baseSequence), entries, layers: {}, rawChanged: new Map(), rawDeleted: [] });
}

/** A delta above 6,000,000 bytes (an incompressible tracked file), which the reference sends presigned. */
export async function largeDelta(agentId: string, baseSequence: number, size = 6_200_000): Promise<{ bytes: Uint8Array; file: Uint8Array }> {
  const file = randomBytes(size);
  const bytes = await writeDelta({
    manifest: deltaManifest(agentId, baseSequence), entries: [], layers: {},
    rawChanged: new Map([['raw/openclaw/memory/attachments/scan.bin', file]]), rawDeleted: [],
  });
  return { bytes, file };
}
