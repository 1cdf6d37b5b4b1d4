import { createRequire } from 'node:module';

/** Node's `process.getBuiltinModule` (20.16+), else a `require` made on first use (making one at load cost ~0.5 ms). */
function requireBuiltin(id: string): unknown {
  return process.getBuiltinModule?.(id) ?? createRequire(import.meta.url)(id);
}

/**
 * One of Node's own modules, loaded on the first call rather than when the importing module is
 * evaluated. A `lineage sync` process evaluates the whole sync's import graph at start, and an idle
 * sync (nothing changed: no hash, no deflate, no thread) has no use for node:crypto (~3 ms of CPU
 * to load) or node:worker_threads (~1.5 ms); the module that needs one calls this where it uses it.
 * Node caches its modules: every call after the first returns the same object at once.
 */
export function nodeBuiltin<T>(id: `node:${string}`): () => T {
  let loaded: T | undefined;
  return () => (loaded ??= requireBuiltin(id) as T);
}

/** node:crypto, loaded on first use (see nodeBuiltin). */
export const nodeCrypto = nodeBuiltin<typeof import('node:crypto')>('node:crypto');
