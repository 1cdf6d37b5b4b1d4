import { mkdir } from 'node:fs/promises';
import { isJsonObject } from '@/lib/core/json';
import { parseUuid } from '@/lib/core/uuid';
import { writeAgentIdFile } from '../shared/agent-id';
import { assertWritable, writeRawFiles, rawFilesFor, withoutSidecars } from '../shared/raw-write';
import { AGENT_ID_FILE, isNeverRaw } from '../shared/sync-marker';
import type { ImportOptions, ImportResult, PlannedWrites } from '../types';
import { setLayerTimes } from '../shared/restore-layer-times';
import { unwrittenLayerWarnings } from '../shared/restore-layers';
import { layersOf, readProse } from './export-parts';
import { proseFileTimes, proseFilesFromLayers } from './layers';
import { reconstructMemoryFiles } from './reconstruct';
import { absPath } from './workspace-files';

/**
 * Imports a snapshot into an OpenClaw workspace (CONTRACT §6 step 5). With any
 * `raw/openclaw/` entry, those files are written byte-exact (runtime sidecars skipped);
 * otherwise the workspace is rebuilt from the identity/principal prose and the records.
 * `.alf-agent-id` is written last, without a newline. All paths are checked before the
 * first write, so an unsafe archive changes nothing.
 */
export async function importOpenclaw(opts: ImportOptions): Promise<ImportResult> {
  const agentId = snapshotAgentId(opts);
  const files = filesToWrite(opts);
  // `.alf-agent-id` is written last: checked with the files, before the first of them is.
  assertWritable(opts.target, [...files.keys(), AGENT_ID_FILE]);
  await mkdir(opts.target, { recursive: true });
  const written = await writeRawFiles({ target: opts.target, files, skipSidecars: true });
  // The prose files' mtimes are the layers' times, so the restored workspace exports the snapshot's layers.
  await setLayerTimes(opts.target, new Map([...proseFileTimes(opts.snapshot.layers, files)].filter(([rel]) => written.includes(rel))));
  await writeAgentIdFile(opts.target, agentId);
  // What of the layers the files written do not hold, as the export reads them back from those files.
  const prose = readProse(files, new Map([...files.keys()].map((rel) => [rel, UNIX_EPOCH])));
  const back = layersOf(agentId, prose);
  const warnings = unwrittenLayerWarnings('openclaw', opts.snapshot.layers, { identity: back.identity ?? null, principals: back.principals ?? null });
  return { written: [...written, AGENT_ID_FILE].sort(), memoryRecords: opts.snapshot.records.length, warnings };
}

/** The files `importOpenclaw` writes (it writes no database). */
export async function openclawPlannedWrites(opts: ImportOptions): Promise<PlannedWrites> {
  return { files: withoutSidecars(filesToWrite(opts)), database: null };
}

/** A stand-in for the files' mtimes: the layers are compared times aside. */
const UNIX_EPOCH = '1970-01-01T00:00:00Z';

function filesToWrite(opts: ImportOptions): Map<string, Uint8Array> {
  const raw = rawFilesFor(opts.snapshot.raw, 'openclaw');
  const out = new Map<string, Uint8Array>();
  if (raw.size > 0) {
    for (const [rel, bytes] of raw) if (!isNeverRaw(rel)) out.set(rel, bytes);
    return out;
  }
  const encoder = new TextEncoder();
  for (const [rel, text] of proseFilesFromLayers(opts.snapshot.layers)) out.set(rel, encoder.encode(text));
  for (const [rel, text] of reconstructMemoryFiles(opts.snapshot.records)) out.set(rel, encoder.encode(text));
  return out;
}

/** The archive's agent id: `manifest.agent.id`, else the records' shared `agent_id`. */
function snapshotAgentId(opts: ImportOptions): string {
  const agent = opts.snapshot.manifest.agent;
  const fromManifest = isJsonObject(agent) && typeof agent.id === 'string' ? parseUuid(agent.id) : null;
  const fromRecord = opts.snapshot.records[0] ? parseUuid(opts.snapshot.records[0].agent_id) : null;
  const id = fromManifest ?? fromRecord;
  if (id === null) throw new Error('snapshot has no agent id (manifest.agent.id) to write to .alf-agent-id');
  return id;
}
