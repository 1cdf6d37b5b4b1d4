import { AdapterError } from './shared/errors';
import { openclawAdapter } from './openclaw';
import { zeroclawAdapter } from './zeroclaw';
import { hermesAdapter } from './hermes';
import type { Adapter, Runtime } from './types';

/**
 * Adapters by runtime. ZeroClaw and Hermes register here as they land;
 * `getAdapter` reports a runtime that has none yet.
 */
const ADAPTERS: Partial<Record<Runtime, Adapter>> = {
  openclaw: openclawAdapter,
  zeroclaw: zeroclawAdapter,
  hermes: hermesAdapter,
};

/** The adapter for a runtime; throws a clear error when none is registered. */
export function getAdapter(runtime: Runtime): Adapter {
  const adapter = ADAPTERS[runtime];
  if (!adapter) throw new AdapterError('invalid_runtime', `no adapter registered for runtime "${runtime}"`);
  return adapter;
}
