/** The history query verbs used by `app/api/**` and the CLI. Each takes one object parameter. */
export * from './queries/common';
export * from './queries/agents';
export * from './queries/sequences';
export { getSequenceOps } from './queries/sequence-ops';
export { getSequenceRaw, type SequenceRawPage } from './queries/sequence-raw';
export * from './queries/records';
export * from './queries/memory-dto';
export * from './queries/changes';
export * from './queries/search';
export * from './queries/workspace';
export * from './queries/compare';
export * from './queries/restored-download';
export * from './queries/database-records';
export * from './queries/blame';
