import fs from 'node:fs';
import path from 'node:path';
import type { JsonObject } from '../../json';
import type { MemoryRecord } from '../../record';
import type { AlfDelta, AlfSnapshot } from '../types';

export const AGENT_ID = '377f6e23-ecf6-50c9-a538-8fee0e49a65b';

/** The reference synthetic fixture, read from ../shared (never copied into the repo). */
export function syntheticAgentBytes(): Uint8Array {
  return fs.readFileSync(path.resolve(process.cwd(), '../shared/alf/fixtures/synthetic-agent.alf'));
}

/** A small valid record; `n` makes the id unique. */
export function makeRecord(n: number, temporal: JsonObject = {}, extra: JsonObject = {}): MemoryRecord {
  const hex = n.toString(16).padStart(12, '0');
  return {
    id: `0190a000-0000-7000-8000-${hex}`,
    agent_id: AGENT_ID,
    content: `fact number ${n}`,
    memory_type: 'semantic',
    source: { runtime: 'openclaw', origin: 'memory_md', origin_file: 'MEMORY.md' },
    temporal: { created_at: '2026-01-15T10:00:00Z', ...temporal },
    status: 'active',
    namespace: 'curated',
    ...extra,
  } as MemoryRecord;
}

export function makeSnapshot(records: MemoryRecord[], raw: Record<string, string> = {}): AlfSnapshot {
  return {
    manifest: {
      alf_version: '1.0.0',
      created_at: '2026-05-01T00:00:00Z',
      agent: { id: AGENT_ID, name: 'standard', source_runtime: 'openclaw' },
      layers: {},
    },
    records,
    layers: {},
    raw: new Map(Object.entries(raw).map(([name, text]) => [name, Buffer.from(text)])),
    extra: new Map(),
  };
}

export function makeDelta(parts: Partial<AlfDelta> = {}): AlfDelta {
  return {
    manifest: {
      alf_version: '1.0.0',
      created_at: '2026-05-02T00:00:00Z',
      agent: { id: AGENT_ID, source_runtime: 'openclaw' },
      sync: { base_sequence: 3, new_sequence: 0 },
      changes: {},
    },
    entries: [],
    layers: {},
    rawChanged: new Map(),
    rawDeleted: [],
    ...parts,
  };
}

/**
 * Sets `path` (dotted keys, `[n]` for an array item) in a JSON document, making the objects on the
 * way; `undefined` deletes the field. For building documents with one field out of place.
 */
export function setPath(doc: Record<string, unknown>, path: string, value: unknown): void {
  const keys = path.replace(/\[(\d+)\]/g, '.$1').split('.');
  let at = doc;
  for (const key of keys.slice(0, -1)) {
    if (at[key] === undefined || at[key] === null) at[key] = {};
    at = at[key] as Record<string, unknown>;
  }
  const last = keys[keys.length - 1]!;
  if (value === undefined) delete at[last];
  else at[last] = value;
}
