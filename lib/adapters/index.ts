import { AdapterError } from './shared/errors';
import { openclawAdapter } from './openclaw';
import type { Adapter, Runtime } from './types';

/**
 * Adapters by runtime. ZeroClaw and Hermes register here as they land;
 * `getAdapter` reports a runtime that has none yet.
 */
const ADAPTERS: Partial<Record<Runtime, Adapter>> = {
  openclaw: openclawAdapter,
  zeroclaw: loadedOnUse('zeroclaw', async () => (await import('./zeroclaw')).zeroclawAdapter),
  hermes: loadedOnUse('hermes', async () => (await import('./hermes')).hermesAdapter),
};

/**
 * An adapter whose module (and better-sqlite3 with it) is imported on its first call: a process
 * that syncs another runtime, or finds its SQLite store unchanged (lib/sync/store-stat.ts), never
 * loads it. Every method of these adapters is async already; neither has `exportSlots` (the
 * wrapper would have to forward it, as the sync asks whether an adapter has it).
 */
function loadedOnUse(runtime: Runtime, load: () => Promise<Adapter>): Adapter {
  let loaded: Promise<Adapter> | undefined;
  const adapter = () => (loaded ??= load());
  return {
    runtime,
    exportWorkspace: async (opts) => (await adapter()).exportWorkspace(opts),
    importSnapshot: async (opts) => (await adapter()).importSnapshot(opts),
    plannedWrites: async (opts) => (await adapter()).plannedWrites(opts),
    memoryPresent: async (workspace, runtimeAgent) => (await adapter()).memoryPresent(workspace, runtimeAgent),
  };
}

/** The adapter for a runtime; throws a clear error when none is registered. */
export function getAdapter(runtime: Runtime): Adapter {
  const adapter = ADAPTERS[runtime];
  if (!adapter) throw new AdapterError('invalid_runtime', `no adapter registered for runtime "${runtime}"`);
  return adapter;
}
