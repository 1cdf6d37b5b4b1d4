'use strict';
// The CLI as plain JavaScript: lib/cli/main.ts and our modules bundled by esbuild (the compiler tsx
// itself uses) into one CommonJS file, `.cli/<stamp>/main.cjs`, that bin/lineage.cjs runs with a V8
// code cache beside it (cli-cache.cjs); `lineage sync` runs `sync.cjs` beside it, the same CLI with
// that one command (lib/cli/sync-main.ts). Run through tsx instead, every invocation spent most of a
// second loading TypeScript through the loader's hooks before doing anything.
//
// One file rather than an ES module per chunk: Node's ES module loader resolved, linked and
// compiled each of the ~60 chunks a `lineage sync` imported, and an ES module cannot be given a
// code cache. The commands still load lazily: esbuild wraps each dynamically imported module in a
// function that runs on first import, so a `lineage sync` compiles the web server's code from the
// cache at most, and never runs it. The pure-JavaScript packages a sync runs are bundled too (their
// ~130 files were each resolved, read and compiled per process), and so is better-sqlite3's
// JavaScript (its ~13 files through Node's loader were ~7 ms of every sync, which takes the agent's
// lock with it: lib/sync/agent-lock.ts), its addon loaded from its package by path (`bindings`
// below). The rest stay Node's to load: yazl (its buffer-crc32 is patched in place: native-crc32.ts), the
// scale-out backend's (loaded only with scale-out settings), Next.js.
//
// `<stamp>` sums up the sources the bundle is made of (count, bytes and newest mtime): an edit
// makes a new stamp, and the next invocation builds again. Which files those are, the last build
// wrote down (`.cli/sources.json`): every file esbuild read for the bundle and the worker scripts,
// every file in lib/ and db/ that is not TypeScript (data read at run time: migrations, JSON),
// tsconfig.json, package.json, this file and resident-client.cjs (the watch command imports it),
// and the directories of lib/ and db/ that hold them (a file added or removed there changes its
// directory's mtime: a new module that an import would now resolve to). A start stats those ~440
// paths (~4 ms), not every file of lib/ and db/ with its tests (~700, ~8 ms): an edit of a test or
// of a module no command imports builds nothing. With no usable list (none yet, damaged, a listed
// file gone) the stamp is the walk of lib/, db/ and those four files, as it was before any list.
// A build goes to a temporary directory renamed into place, so concurrent invocations never see
// half a bundle; the list is written (by a rename) only when no listed file changed while esbuild
// ran, so a bundle is never named after sources newer than it.
const fs = require('node:fs');
const path = require('node:path');
const { createRequire } = require('node:module');

/** The directories of our sources (tests and all), as a walk stamps them. */
const SOURCE_DIRS = ['lib', 'db'];
const SOURCE_FILES = ['tsconfig.json', 'package.json', 'bin/cli-bundle.cjs', 'bin/resident-client.cjs'];
const BUNDLE_DIR = '.cli';
/** In BUNDLE_DIR: the files and directories the stamp covers, as the last build found them. */
const SOURCE_LIST = 'sources.json';
/** What a stamp of the list starts with (a stamp of the walk starts with a digit). */
const LISTED = 'l';
const ENTRY = 'main.cjs';
/** Beside ENTRY: the bundle of lib/cli/sync-main.ts, the CLI with `sync` alone, which a `lineage sync` runs. */
const SYNC_ENTRY = 'sync.cjs';
/** The worker threads' entries whose scripts are built beside the bundle (lib/worker-script.ts reads them). */
const WORKER_ENTRIES = ['lib/storage/ingest-worker.ts'];
/** Packages bundled (with their subpaths); every other one is left to Node's `require`. */
const BUNDLED_PACKAGES = new Set(['commander', 'smol-toml', 'fflate', 'yauzl', 'diff-match-patch', 'drizzle-orm', 'better-sqlite3']);

/**
 * What better-sqlite3's `require('bindings')('better_sqlite3.node')` is in the bundle. The package
 * `bindings` finds the addon from the file that calls it (read off a stack trace), which in the
 * bundle is the bundle, not better-sqlite3: here the addon is required from the package's own
 * build directory, where its install puts it, and otherwise `bindings` looks for it the way it
 * always did, told the package's directory. Its failed tries (build/, build/Debug/ before
 * build/Release/) each cost a resolution and a thrown error.
 */
const ADDON_NAMESPACE = 'lineage-addon';
const ADDON_SHIM = `
module.exports = function bindings(name) {
  const built = 'better-sqlite3/build/Release/' + name;
  try {
    return require(built);
  } catch (error) {
    // Not there (or not a path the package lets us name): bindings' search. An addon that is there
    // and does not load (built for another Node) fails here as it would there.
    if (error === null || typeof error !== 'object' || (error.code !== 'MODULE_NOT_FOUND' && error.code !== 'ERR_PACKAGE_PATH_NOT_EXPORTED')) throw error;
  }
  const bindings = require('bindings');
  return bindings({ bindings: name, module_root: bindings.getRoot(require.resolve('better-sqlite3')) });
};
`;

/**
 * commander's lib/command.js requires node:child_process when it is evaluated, for the executable
 * subcommands we do not have; with it came node:net, node:dgram and the streams (~2.5 ms of CPU of
 * every process). In the bundle that require is made on first use of the module: `childProcess.spawn`
 * loads it. A commander whose line differs is bundled as it is.
 */
const COMMANDER_CHILD_PROCESS = "const childProcess = require('node:child_process');";
const LAZY_CHILD_PROCESS = "const childProcess = new Proxy({}, { get: (_, name) => require('node:child_process')[name] });";

/** esbuild: a package import is external unless its package is in BUNDLED_PACKAGES. */
const packagesPlugin = {
  name: 'lineage-packages',
  setup(build) {
    build.onResolve({ filter: /^bindings$/ }, (args) =>
      /[\\/]node_modules[\\/]better-sqlite3[\\/]/.test(args.importer) ? { path: 'bindings', namespace: ADDON_NAMESPACE } : undefined);
    build.onLoad({ filter: /.*/, namespace: ADDON_NAMESPACE }, () => ({ contents: ADDON_SHIM, loader: 'js', resolveDir: build.initialOptions.absWorkingDir }));
    build.onLoad({ filter: /[\\/]node_modules[\\/]commander[\\/]lib[\\/]command\.js$/ }, (args) => ({
      contents: fs.readFileSync(args.path, 'utf8').replace(COMMANDER_CHILD_PROCESS, LAZY_CHILD_PROCESS),
      loader: 'js',
    }));
    build.onResolve({ filter: /^[^./]/ }, (args) => {
      if (args.namespace === ADDON_NAMESPACE) return { path: args.path, external: true };
      if (args.path.startsWith('@/')) return undefined; // our own modules (tsconfig paths)
      const parts = args.path.split('/');
      const name = args.path.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0];
      return BUNDLED_PACKAGES.has(name) ? undefined : { path: args.path, external: true };
    });
  },
};

/** A stamp of `stats` (of files: count, bytes, newest mtime) and `dirStats` (newest mtime only), with `prefix`. */
function stampOf(prefix, stats, dirStats) {
  let bytes = 0;
  let newest = 0;
  for (const stat of stats) {
    bytes += stat.size;
    newest = Math.max(newest, stat.mtimeMs);
  }
  for (const stat of dirStats) newest = Math.max(newest, stat.mtimeMs);
  return `${prefix}${stats.length}-${bytes}-${Math.floor(newest)}`;
}

/** Every file of lib/ and db/ (relative path → stat), their directories (the same), and SOURCE_FILES' stats. */
function walkSources(root) {
  const files = new Map();
  const dirs = new Map();
  // Each path made by concatenation (a path.join per file was a third of the walk's time).
  const walk = (rel) => {
    dirs.set(rel, fs.statSync(`${root}${path.sep}${rel}`));
    for (const entry of fs.readdirSync(`${root}${path.sep}${rel}`, { withFileTypes: true })) {
      const child = `${rel}/${entry.name}`;
      if (entry.isDirectory()) walk(child);
      else if (entry.isFile()) files.set(child, fs.statSync(`${root}${path.sep}${child}`));
    }
  };
  for (const dir of SOURCE_DIRS) walk(dir);
  for (const file of SOURCE_FILES) files.set(file, fs.statSync(path.join(root, file)));
  return { files, dirs };
}

/** The stamp of the walk: lib/ and db/ whole (the stamp without a list, and the only one before lists). */
function walkedStamp(root) {
  const { files } = walkSources(root);
  return stampOf('', [...files.values()], []);
}

/** The list the last build wrote (`{ stamp, files, dirs }`, paths relative to `root`), or null. */
function readSourceList(root) {
  let list;
  try {
    list = JSON.parse(fs.readFileSync(path.join(root, BUNDLE_DIR, SOURCE_LIST), 'utf8'));
  } catch {
    return null;
  }
  const paths = (value) => Array.isArray(value) && value.every((rel) => typeof rel === 'string' && rel !== '' && !path.isAbsolute(rel) && !rel.split('/').includes('..'));
  return list !== null && typeof list === 'object' && paths(list.files) && list.files.length > 0 && paths(list.dirs) ? list : null;
}

/** The stamp of the listed files and directories as they are now; throws when one is gone. */
function listedStamp(root, list) {
  const stat = (rel) => fs.statSync(`${root}${path.sep}${rel}`);
  return stampOf(LISTED, list.files.map(stat), list.dirs.map(stat));
}

/** The stamp of the current sources under `root` (see above). */
function sourceStamp(root) {
  const list = readSourceList(root);
  if (list !== null) {
    try {
      return listedStamp(root, list);
    } catch {
      // a listed file or directory is gone: the walk's stamp, which never starts with LISTED
    }
  }
  return walkedStamp(root);
}

/**
 * The list of a build (see above) from esbuild's `inputs` (paths relative to `root`) and the walk
 * `before` it, or null when an input is outside the walk or any listed path changed since.
 */
function sourceListOf(root, inputs, before) {
  const files = new Set();
  for (const rel of inputs) if (!rel.split('/').includes('node_modules')) files.add(rel);
  for (const rel of before.files.keys()) if (!rel.endsWith('.ts')) files.add(rel);
  for (const rel of SOURCE_FILES) files.add(rel);
  const dirs = new Set();
  for (const rel of files) {
    const dir = path.posix.dirname(rel);
    if (SOURCE_DIRS.some((top) => dir === top || dir.startsWith(`${top}/`))) dirs.add(dir);
  }
  const list = { files: [...files].sort(), dirs: [...dirs].sort() };
  const same = (a, b) => b !== undefined && a.size === b.size && a.mtimeMs === b.mtimeMs;
  try {
    for (const rel of list.files) if (!same(fs.statSync(path.join(root, rel)), before.files.get(rel))) return null;
    for (const rel of list.dirs) if (!same(fs.statSync(path.join(root, rel)), before.dirs.get(rel))) return null;
  } catch {
    return null;
  }
  return list;
}

/** The bundle's entry for the current sources, or null when it has not been built. */
function bundleEntry(root, stamp = sourceStamp(root)) {
  const entry = path.join(root, BUNDLE_DIR, stamp, ENTRY);
  return fs.existsSync(entry) ? entry : null;
}

/** The bundle to run for the CLI words `argv` (after the script), given the bundle's entry: the sync's own for `sync`. */
function commandEntry(entry, argv) {
  return argv[0] === 'sync' ? path.join(path.dirname(entry), SYNC_ENTRY) : entry;
}

/** Builds the bundle for the current sources (unless it is there) and returns its entry. */
async function buildBundle(root) {
  const stamp = sourceStamp(root);
  const existing = bundleEntry(root, stamp);
  if (existing) return existing;
  const fromTsx = createRequire(createRequire(path.join(root, 'package.json')).resolve('tsx/package.json'));
  const esbuild = fromTsx('esbuild');
  const parent = path.join(root, BUNDLE_DIR);
  fs.mkdirSync(parent, { recursive: true });
  const tmp = fs.mkdtempSync(path.join(parent, `${stamp}.tmp-`));
  try {
    // The sources as the build starts: the list below is written only if none changed meanwhile.
    const before = walkSources(root);
    const inputs = new Set();
    const read = (metafile) => {
      // The shim of `bindings` (ADDON_NAMESPACE) is esbuild's input, not a file of ours: a listed
      // path that cannot be stat'ed would keep the list from ever being written.
      for (const input of Object.keys(metafile.inputs)) if (!input.startsWith(`${ADDON_NAMESPACE}:`)) inputs.add(path.relative(root, path.resolve(root, input)).split(path.sep).join('/'));
    };
    // Both CLI entries in one build: every command's (main.cjs) and the sync's alone (sync.cjs, 15%
    // smaller: a `lineage sync` reads, decodes and deserialises less, ~2.5 ms of CPU per process).
    const built = await esbuild.build({
      entryPoints: { main: path.join(root, 'lib/cli/main.ts'), sync: path.join(root, 'lib/cli/sync-main.ts') },
      tsconfig: path.join(root, 'tsconfig.json'),
      bundle: true,
      plugins: [packagesPlugin],
      platform: 'node',
      format: 'cjs',
      target: 'node20',
      // A package imported lazily (Next.js, the scale-out backend's) is required when it is first
      // needed: `import()` from a vm.Script takes an experimental loader hook in Node 20.
      supported: { 'dynamic-import': false },
      outdir: tmp,
      outExtension: { '.js': '.cjs' },
      // Comments and indentation out, and every character ASCII (esbuild escapes strings and
      // names; a regular expression literal it leaves as written, so ours are written in ASCII):
      // every start reads and decodes the bundle, and an ASCII file is decoded as Latin-1 into a
      // one-byte string (cli-cache.cjs), a quarter of UTF-8's time, which V8 also compiles faster.
      minifyWhitespace: true,
      charset: 'ascii',
      // Our modules find their package and their packages' files from their own URL.
      define: { 'import.meta.url': '__lineage_module_url' },
      // lib/worker-script.ts finds the worker scripts built below beside the bundle.
      banner: { js: 'const __lineage_module_url = require("node:url").pathToFileURL(__filename).href; const __lineage_bundle_dir = __dirname;' },
      logLevel: 'silent',
      absWorkingDir: root,
      metafile: true,
    });
    read(built.metafile);
    // The worker threads' scripts (WORKER_ENTRIES), built as lib/worker-script.ts would build
    // them at run time: a `lineage sync` that ingests a large upload on the ingest thread starts it
    // without running esbuild first.
    for (const entry of WORKER_ENTRIES) {
      const worker = await esbuild.build({
        entryPoints: [path.join(root, entry)],
        tsconfig: path.join(root, 'tsconfig.json'),
        bundle: true, platform: 'node', format: 'cjs', target: 'node20', logLevel: 'silent',
        external: ['better-sqlite3'],
        outfile: path.join(tmp, `${path.basename(entry, '.ts')}.cjs`),
        absWorkingDir: root,
        metafile: true,
      });
      read(worker.metafile);
    }
    // Named after the list's stamp, or (sources edited during the build) after the stamp it started
    // from, which the next start no longer finds: it builds again.
    const list = sourceListOf(root, inputs, before);
    const name = list === null ? stamp : listedStamp(root, list);
    const final = path.join(parent, name);
    try {
      fs.renameSync(tmp, final);
    } catch (error) {
      // Another invocation put the same build in place first.
      if (!fs.existsSync(path.join(final, ENTRY))) throw error;
    }
    if (list !== null) {
      const listFile = path.join(parent, SOURCE_LIST);
      const listTmp = `${listFile}.tmp-${process.pid}-${Math.random().toString(36).slice(2)}`;
      fs.writeFileSync(listTmp, `${JSON.stringify({ stamp: name, ...list })}\n`);
      fs.renameSync(listTmp, listFile);
    }
    // Bundles of earlier sources, and builds that never finished, go.
    for (const entry of fs.readdirSync(parent)) {
      if (entry === name || entry === SOURCE_LIST || entry.startsWith(`${SOURCE_LIST}.tmp-`) || entry.startsWith(`${stamp}.tmp-`)) continue;
      fs.rmSync(path.join(parent, entry), { recursive: true, force: true });
    }
    return path.join(final, ENTRY);
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}

exports.WORKER_ENTRIES = WORKER_ENTRIES;
exports.sourceStamp = sourceStamp;
exports.bundleEntry = bundleEntry;
exports.commandEntry = commandEntry;
exports.buildBundle = buildBundle;
