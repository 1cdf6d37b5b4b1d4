// The CLI as plain JavaScript: lib/cli/main.ts and our modules bundled by esbuild (the compiler tsx
// itself uses) into `.cli/<stamp>/`, with every package left to Node (`packages: 'external'`) and
// each command in its own chunk (a `lineage sync` loads neither the web server nor Next.js).
// Run through tsx instead, every invocation spent most of a second loading TypeScript through the
// loader's hooks before doing anything.
//
// `<stamp>` sums up the sources the bundle is made of (count, bytes and newest mtime of lib/ and
// db/, tsconfig.json, package.json, this file): an edit makes a new stamp, and the next invocation
// builds again. A build goes to a temporary directory renamed into place, so concurrent
// invocations never see half a bundle.
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';

const SOURCE_DIRS = ['lib', 'db'];
const SOURCE_FILES = ['tsconfig.json', 'package.json', 'bin/cli-bundle.mjs'];
const BUNDLE_DIR = '.cli';

/** The stamp of the current sources under `root` (see above). */
export function sourceStamp(root) {
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
export function bundleEntry(root, stamp = sourceStamp(root)) {
  const entry = path.join(root, BUNDLE_DIR, stamp, 'main.mjs');
  return fs.existsSync(entry) ? entry : null;
}

/** Builds the bundle for the current sources (unless it is there) and returns its entry. */
export async function buildBundle(root) {
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
      splitting: true,
      packages: 'external',
      platform: 'node',
      format: 'esm',
      target: 'node20',
      outdir: tmp,
      outExtension: { '.js': '.mjs' },
      logLevel: 'silent',
    });
    const final = path.join(parent, stamp);
    try {
      fs.renameSync(tmp, final);
    } catch (error) {
      // Another invocation put the same build in place first.
      if (!fs.existsSync(path.join(final, 'main.mjs'))) throw error;
    }
    // Bundles of earlier sources, and builds that never finished, go.
    for (const name of fs.readdirSync(parent)) {
      if (name !== stamp && !name.startsWith(`${stamp}.tmp-`)) fs.rmSync(path.join(parent, name), { recursive: true, force: true });
    }
    return path.join(final, 'main.mjs');
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}
