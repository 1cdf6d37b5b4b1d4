#!/usr/bin/env node
// The package's bin (and `npm run lineage`, `npm start`): runs the CLI from its JavaScript bundle,
// built on first use and whenever the sources change (cli-bundle.mjs), with a V8 code cache per
// command beside it (cli-cache.mjs; LINEAGE_CLI_CODE_CACHE=0 runs without). If the bundle cannot be
// built, the TypeScript sources run through tsx's loader instead (path aliases from tsconfig).
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildBundle, bundleEntry, sourceStamp } from './cli-bundle.mjs';
import { cacheFor, runCommonJs } from './cli-cache.mjs';
import { syncThroughResident } from './resident-client.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** The stamp of the sources this process runs (cli-bundle.mjs), or null when they cannot be stamped. */
function stampNow() {
  try {
    return sourceStamp(root);
  } catch {
    return null;
  }
}
const stamp = stampNow();
// What the CLI runs is these sources: a `lineage watch` serves only syncs of the same (lib/cli/resident.ts).
globalThis[Symbol.for('lineage.cli.stamp')] = stamp;

async function entry() {
  if (process.env.LINEAGE_CLI_FROM_SOURCE === '1') return null;
  try {
    return (stamp === null ? null : bundleEntry(root, stamp)) ?? (await buildBundle(root));
  } catch (error) {
    process.stderr.write(`lineage: running from the TypeScript sources (the CLI bundle could not be built: ${error instanceof Error ? error.message : String(error)})\n`);
    return null;
  }
}

async function runHere() {
  const bundle = await entry();
  if (bundle) {
    const cache = process.env.LINEAGE_CLI_CODE_CACHE === '0' ? { cacheFile: null } : cacheFor(bundle, process.argv.slice(2));
    runCommonJs({ file: bundle, ...cache });
  } else {
    const { register } = await import('tsx/esm/api');
    register({ tsconfig: path.join(root, 'tsconfig.json') });
    await import(path.join(root, 'lib/cli/main.ts'));
  }
}

// A `lineage sync` that a running `lineage watch` of the same workspace and target (and the same
// sources) serves runs there, warm (resident-client.mjs); otherwise, and for every other command, here.
const served = process.argv[2] === 'sync' && stamp !== null ? await syncThroughResident(process.argv.slice(3), process.env, stamp) : null;
if (served !== null) process.exitCode = served;
else await runHere();
