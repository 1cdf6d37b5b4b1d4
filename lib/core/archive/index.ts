/**
 * ALF archive reading and writing (`.alf` snapshots and `.alf-delta` bundles).
 * Readers treat every archive as hostile (CONTRACT §9); writers produce deterministic bytes.
 */
export * from './types';
export { readSnapshot, readSnapshotLines, scanSnapshot, MANIFEST_FILE, DELTA_MANIFEST_FILE, type SnapshotWithLines } from './read-snapshot';
export { RecordLines } from './record-lines';
export { writeSnapshot, writeSnapshotRead, type WriteSnapshotOptions, type WrittenSnapshot } from './write-snapshot';
export { deltaManifestName, readDelta } from './read-delta';
export { writeDelta } from './write-delta';
export { isDeltaArchive } from './detect';
export { partitionRecords, parseRfc3339, isFullDate, type QuarterPartition } from './partitions';
export { entryNameProblem } from './entry-names';
export { MEMORY_INDEX_FILE } from './inventory';
