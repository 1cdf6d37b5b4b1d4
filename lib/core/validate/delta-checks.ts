import { isJsonObject, type JsonObject } from '../json';
import { fileNameProblem } from '../archive/entry-names';
import { LAYER_FILES } from '../archive/types';
import { DELTA_MANIFEST_LEVEL } from '../duplicate-keys';
import { checkLayerDocument, checkManifestDocument, checkRecordFile } from './documents';
import { DELTA_MANIFEST } from './manifest-rules';
import { checkIdentityAgent, warnAgentIdForm } from './reference-rules';
import { child, type Issues } from './rules';

const DEFAULT_MEMORY_FILE = 'memory/delta.jsonl';
const RAW_PATH = /^raw\/[^/]+\/./;

/** Schema and consistency checks of a `.alf-delta`'s contents; `manifestFile` is where its manifest lives. */
export function checkDelta(
  files: ReadonlyMap<string, Uint8Array>,
  manifestFile: string,
  issues: Issues,
  maxLineBytes: number,
): void {
  const manifest = checkManifestDocument(files, manifestFile, 'delta', DELTA_MANIFEST, issues, DELTA_MANIFEST_LEVEL);
  if (!manifest) return;
  const changes = isJsonObject(manifest.changes) ? manifest.changes : {};
  const changesPath = `${manifestFile}#/changes`;
  warnAgentIdForm(manifest, manifestFile, issues);
  checkMemory(files, changes, changesPath, issues, maxLineBytes);
  for (const layer of ['identity', 'principals', 'credentials'] as const) {
    const doc = files.has(LAYER_FILES[layer]) ? checkLayerDocument(files, layer, issues) : null;
    if (layer === 'identity') checkIdentityAgent(doc, manifest, issues, manifestFile);
    const entry = changes[layer];
    if (isJsonObject(entry) && typeof entry.file === 'string' && entry.file !== LAYER_FILES[layer]) {
      issues.error(`${changesPath}/${layer}/file`, `${JSON.stringify(entry.file)} is not ${JSON.stringify(LAYER_FILES[layer])}, the only path the ${layer} layer is read from (CONTRACT §3.2)`);
    } else if (isJsonObject(entry) && typeof entry.file === 'string' && !files.has(entry.file)) {
      issues.error(`${changesPath}/${layer}/file`, `${JSON.stringify(entry.file)} is not in the archive`);
    }
  }
  checkRaw(files, isJsonObject(changes.raw) ? changes.raw : {}, `${changesPath}/raw`, issues);
}

function checkMemory(
  files: ReadonlyMap<string, Uint8Array>,
  changes: JsonObject,
  changesPath: string,
  issues: Issues,
  maxLineBytes: number,
): void {
  const memory = isJsonObject(changes.memory) ? changes.memory : null;
  const file = memory && typeof memory.file === 'string' ? memory.file : DEFAULT_MEMORY_FILE;
  if (file !== DEFAULT_MEMORY_FILE) {
    issues.error(`${changesPath}/memory/file`, `${JSON.stringify(file)} is not ${JSON.stringify(DEFAULT_MEMORY_FILE)}, the only path a delta's memory changes are read from (CONTRACT §3.2)`);
    return;
  }
  const bytes = files.get(file);
  if (!bytes) {
    if (memory) issues.error(`${changesPath}/memory/file`, `${JSON.stringify(file)} is not in the archive`);
    return;
  }
  const count = checkRecordFile(bytes, file, issues, new Map(), { delta: true, maxLineBytes });
  if (memory && typeof memory.record_count === 'number' && memory.record_count !== count) {
    issues.error(`${changesPath}/memory/record_count`, `says ${memory.record_count} but ${file} holds ${count} entries`);
  }
}

function checkRaw(files: ReadonlyMap<string, Uint8Array>, raw: JsonObject, rawPath: string, issues: Issues): void {
  const changed = stringList(raw.changed);
  const deleted = stringList(raw.deleted);
  changed.forEach((path, index) => {
    if (!files.has(path)) issues.error(child(`${rawPath}/changed`, index), `${JSON.stringify(path)} is not in the archive`);
  });
  deleted.forEach((path, index) => {
    const problem = fileNameProblem(path) ?? (RAW_PATH.test(path) ? null : 'not under raw/<runtime>/');
    if (problem) issues.error(child(`${rawPath}/deleted`, index), `${JSON.stringify(path)}: ${problem}`);
    if (changed.includes(path) || files.has(path)) {
      issues.error(child(`${rawPath}/deleted`, index), `${JSON.stringify(path)} is both changed and deleted`);
    }
  });
  for (const name of files.keys()) {
    if (name.startsWith('raw/') && !changed.includes(name)) {
      issues.warn(name, 'raw file is not listed in changes.raw.changed; readers still apply it');
    }
  }
}

function stringList(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((item): item is string => typeof item === 'string') : [];
}
