/** The ledger: data directory, blob store, agents, crash-safe ingest, entries and restore plans. */
export * from './errors';
export * from './data-dir';
export * from './blob-store';
export * from './ledger';
export * from './agents';
export * from './ingest';
export * from './entries';
export * from './orphans';
export * from './checkpointer';
export * from './storage-errors';
export * from './rebuild-marker';
export * from './ingest-checks';
export * from './consistency';
