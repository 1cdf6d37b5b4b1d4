import { cp, mkdtemp } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { AlfSnapshot } from '@/lib/core/archive/types';
import { toArchiveRaw } from '../shared/raw-write';
import type { ExportResult } from '../types';

/** Reference data lives beside the repo and is read in place, never copied into it. */
export const SHARED_ALF = path.resolve(process.cwd(), '../shared/alf');
export const FIXED_CLOCK = () => new Date('2026-06-01T00:00:00Z');

export function tempDir(prefix = 'openclaw-'): Promise<string> {
  return mkdtemp(path.join(os.tmpdir(), prefix));
}

/** Copies a reference fixture workspace into a temp dir so exporting never writes into ../shared. */
export async function copyFixture(name: string): Promise<string> {
  const target = path.join(await tempDir(), name);
  await cp(path.join(SHARED_ALF, 'fixtures/openclaw', name), target, { recursive: true });
  return target;
}

/** An in-memory snapshot of an export, as the archive writer would carry it. */
export function snapshotOf(result: ExportResult, withRaw = true): AlfSnapshot {
  return {
    manifest: { alf_version: '1.0.0', agent: { id: result.agentId, name: result.agentName, source_runtime: 'openclaw' } },
    records: result.records,
    layers: result.layers,
    raw: withRaw ? toArchiveRaw(result.raw, 'openclaw') : new Map(),
    extra: new Map(),
  };
}
