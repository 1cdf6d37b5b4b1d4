'use strict';
// The CLI as plain JavaScript: lib/cli/main.ts and our modules bundled by esbuild (the compiler tsx
// itself uses) into one CommonJS file, `.cli/<stamp>/main.cjs`, that bin/lineage.cjs runs with a V8
// code cache beside it (cli-cache.cjs). Run through tsx instead, every invocation spent most of a
// second loading TypeScript through the loader's hooks before doing anything.
//
// One file rather than an ES module per chunk: Node's ES module loader resolved, linked and
// compiled each of the ~60 chunks a `lineage sync` imported, and an ES module cannot be given a
// code cache. The commands still load lazily: esbuild wraps each dynamically imported module in a
// function that runs on first import, so a `lineage sync` compiles the web server's code from the
// cache at most, and never runs it. The pure-JavaScript packages a sync runs are bundled too (their
// ~130 files were each resolved, read and compiled per process); the rest stay Node's to load:
// better-sqlite3 (native), yazl (its buffer-crc32 is patched in place: native-crc32.ts), the
// scale-out backend's (loaded only with scale-out settings), Next.js.
//
// `<stamp>` sums up the sources the bundle is made of (count, bytes and newest mtime of lib/ and
// db/, tsconfig.json, package.json, this file, resident-client.cjs that the watch command imports): an edit makes a new stamp, and the next invocation
// builds again. A build goes to a temporary directory renamed into place, so concurrent
// invocations never see half a bundle.
const fs = require('node:fs');
const path = require('node:path');
const { createRequire } = require('node:module');

const SOURCE_DIRS = ['lib', 'db'];
const SOURCE_FILES = ['tsconfig.json', 'package.json', 'bin/cli-bundle.cjs', 'bin/resident-client.cjs'];
const BUNDLE_DIR = '.cli';
const ENTRY = 'main.cjs';
/** The worker threads' entries whose scripts are built beside the bundle (lib/worker-script.ts reads them). */
const WORKER_ENTRIES = ['lib/storage/ingest-worker.ts'];
/** Packages bundled (with their subpaths); every other one is left to Node's `require`. */
const BUNDLED_PACKAGES = new Set(['commander', 'smol-toml', 'fflate', 'yauzl', 'diff-match-patch', 'drizzle-orm']);

/** esbuild: a package import is external unless its package is in BUNDLED_PACKAGES. */
const packagesPlugin = {
  name: 'lineage-packages',
  setup(build) {
    build.onResolve({ filter: /^[^./]/ }, (args) => {
      if (args.path.startsWith('@/')) return undefined; // our own modules (tsconfig paths)
      const parts = args.path.split('/');
      const name = args.path.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0];
      return BUNDLED_PACKAGES.has(name) ? undefined : { path: args.path, external: true };
    });
  },
};

/** The stamp of the current sources under `root` (see above). */
function sourceStamp(root) {
  let count = 0;
  let bytes = 0;
  let newest = 0;
  const visit = (stat) => {
    count++;
    bytes += stat.size;
    newest = Math.max(newest, stat.mtimeMs);
  };
  // Every start stats the ~540 sources: each path made by concatenation (a path.join per file was
  // a third of the stamp's time), the directory's own path already normal.
  const walk = (dir) => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const full = `${dir}${path.sep}${entry.name}`;
      if (entry.isDirectory()) walk(full);
      else if (entry.isFile()) visit(fs.statSync(full));
    }
  };
  for (const dir of SOURCE_DIRS) walk(path.join(root, dir));
  for (const file of SOURCE_FILES) visit(fs.statSync(path.join(root, file)));
  return `${count}-${bytes}-${Math.floor(newest)}`;
}

/** The bundle's entry for the current sources, or null when it has not been built. */
function bundleEntry(root, stamp = sourceStamp(root)) {
  const entry = path.join(root, BUNDLE_DIR, stamp, ENTRY);
  return fs.existsSync(entry) ? entry : null;
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
    await esbuild.build({
      entryPoints: [path.join(root, 'lib/cli/main.ts')],
      tsconfig: path.join(root, 'tsconfig.json'),
      bundle: true,
      plugins: [packagesPlugin],
      platform: 'node',
      format: 'cjs',
      target: 'node20',
      // A package imported lazily (Next.js, the scale-out backend's) is required when it is first
      // needed: `import()` from a vm.Script takes an experimental loader hook in Node 20.
      supported: { 'dynamic-import': false },
      outfile: path.join(tmp, ENTRY),
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
    });
    // The worker threads' scripts (WORKER_ENTRIES), built as lib/worker-script.ts would build
    // them at run time: a `lineage sync` that ingests a large upload on the ingest thread starts it
    // without running esbuild first.
    for (const entry of WORKER_ENTRIES) {
      await esbuild.build({
        entryPoints: [path.join(root, entry)],
        tsconfig: path.join(root, 'tsconfig.json'),
        bundle: true, platform: 'node', format: 'cjs', target: 'node20', logLevel: 'silent',
        external: ['better-sqlite3'],
        outfile: path.join(tmp, `${path.basename(entry, '.ts')}.cjs`),
      });
    }
    const final = path.join(parent, stamp);
    try {
      fs.renameSync(tmp, final);
    } catch (error) {
      // Another invocation put the same build in place first.
      if (!fs.existsSync(path.join(final, ENTRY))) throw error;
    }
    // Bundles of earlier sources, and builds that never finished, go.
    for (const name of fs.readdirSync(parent)) {
      if (name !== stamp && !name.startsWith(`${stamp}.tmp-`)) fs.rmSync(path.join(parent, name), { recursive: true, force: true });
    }
    return path.join(final, ENTRY);
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}

exports.WORKER_ENTRIES = WORKER_ENTRIES;
exports.sourceStamp = sourceStamp;
exports.bundleEntry = bundleEntry;
exports.buildBundle = buildBundle;
