#!/usr/bin/env node
'use strict';
// The package's bin (and `npm run lineage`, `npm start`): runs the CLI from its JavaScript bundle,
// built on first use and whenever the sources change (cli-bundle.cjs), with a V8 code cache per
// command beside it (cli-cache.cjs; LINEAGE_CLI_CODE_CACHE=0 runs without). If the bundle cannot be
// built, the TypeScript sources run through tsx's loader instead (path aliases from tsconfig).
//
// CommonJS, as are the three files it loads: run as an ES module, every `lineage` process started
// Node's ES module loader for it (and an ES module facade per built-in module it imported), ~8 ms of
// CPU before the CLI ran. bin/lineage.mjs, the name scripts used to run, loads this file.
//
// Not a V8 startup snapshot (`node --snapshot-blob`, the sync bundle's modules initialised in it), tried
// 2026-12-07 and measured in interleaved pairs against this path: its gross gain on an idle sync is ~5 ms
// of CPU, and with what running it safely takes (a `#!/bin/sh` launcher ~1.7 ms, the source stamp and
// the resident check inside it) an idle sync cost 3.5 ms more (24 pairs, 23 worse) and a 1% sync no
// less. Nor can it fall back: Node 20 dies on a damaged blob (SIGSEGV, or std::bad_alloc) and exits 14
// on one built by another Node or with other V8 flags, before any of our code runs.
const path = require('node:path');
const { pathToFileURL } = require('node:url');
const { buildBundle, bundleEntry, commandEntry, sourceStamp } = require('./cli-bundle.cjs');
const { cacheFor, runCommonJs } = require('./cli-cache.cjs');
const { syncThroughResident } = require('./resident-client.cjs');

const root = path.resolve(__dirname, '..');

/** The stamp of the sources this process runs (cli-bundle.cjs), or null when they cannot be stamped. */
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
    // The bundle is named after the stamp of the sources it was built from, which a build that
    // wrote a new list of them (cli-bundle.cjs) may have made other than the one found above.
    globalThis[Symbol.for('lineage.cli.stamp')] = path.basename(path.dirname(bundle));
    // `lineage sync` runs the sync's own bundle (cli-bundle.cjs), every other command the whole CLI's.
    const file = commandEntry(bundle, process.argv.slice(2));
    const cache = process.env.LINEAGE_CLI_CODE_CACHE === '0' ? { cacheFile: null } : cacheFor(file, process.argv.slice(2));
    runCommonJs({ file, ...cache });
  } else {
    const { register } = await import('tsx/esm/api');
    register({ tsconfig: path.join(root, 'tsconfig.json') });
    await import(pathToFileURL(path.join(root, 'lib/cli/main.ts')).href);
  }
}

// A `lineage sync` that a running `lineage watch` of the same workspace and target (and the same
// sources) serves runs there, warm (resident-client.cjs); otherwise, and for every other command, here.
async function main() {
  const served = process.argv[2] === 'sync' && stamp !== null ? await syncThroughResident(process.argv.slice(3), process.env, stamp) : null;
  if (served !== null) process.exitCode = served;
  else await runHere();
}

main().catch((error) => {
  // What an ES module's top-level await did with a failure here: the error on stderr, exit 1.
  process.stderr.write(`${error instanceof Error && error.stack ? error.stack : String(error)}\n`);
  process.exitCode = 1;
});
