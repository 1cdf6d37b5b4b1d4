/** Utilities every adapter shares: agent id, `.alfignore`, walking, raw writes, control-file names. */
export { readOrMintAgentId, writeAgentIdIfAbsent, pathExists, AgentIdError } from './agent-id';
export { loadAlfIgnore, compileAlfIgnore, type IgnoreMatcher } from './alfignore';
export { globToRegExp } from './glob';
export { walkFiles, isFileInside, compareCodeUnits } from './walk';
export {
  writeRawFiles,
  stageRawFiles,
  assertWritable,
  assertOneTree,
  assertRestorablePaths,
  assertSafeRelPath,
  isSafeRelPath,
  UnsafePathError,
  rawPrefix,
  rawArchivePath,
  rawRelPath,
  rawFilesFor,
  withoutSidecars,
  toArchiveRaw,
} from './raw-write';
export { fullDiskError, type StagedFiles } from './staged-write';
export * from './sync-marker';
export { AdapterError } from './errors';
