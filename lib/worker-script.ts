/**
 * A worker thread's code: its entry module and what that imports bundled into one CommonJS script
 * by esbuild (the TypeScript toolchain tsx runs the CLI with), so the thread starts in milliseconds
 * instead of loading a TypeScript loader. Used by the rebuild's helper thread and the ingest thread.
 */
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { packageRoot } from '@/lib/package-root';

/** Set by the CLI's bundle (bin/cli-bundle.cjs's banner) to its directory; undeclared elsewhere. */
declare const __lineage_bundle_dir: string | undefined;

/**
 * `entry`'s script from the bundle's directory, when this runs from the CLI's bundle and it is
 * there (bin/cli-bundle.cjs `WORKER_ENTRIES`, built with the options below): a `lineage` process
 * starts the thread without running esbuild.
 */
function prebuiltScript(entry: string): string | null {
  if (typeof __lineage_bundle_dir !== 'string') return null;
  try {
    return fs.readFileSync(path.join(__lineage_bundle_dir, `${path.basename(entry, '.ts')}.cjs`), 'utf8');
  } catch {
    return null;
  }
}

/**
 * `code` with its `require` resolving from this package: an eval'd worker's own resolves from the
 * process's working directory, where a `lineage` run from a workspace (or a server started
 * elsewhere) finds no `node_modules` with the external packages.
 */
function anchored(code: string): string {
  const from = JSON.stringify(path.join(packageRoot(), 'package.json'));
  return `(function (require) {\n${code}\n})(require('node:module').createRequire(${from}));\n`;
}

/**
 * The script of `entry`, built once per process by esbuild's own process (the asynchronous API,
 * so the caller can do other work meanwhile): the script itself once built, else the build's
 * promise; null when it cannot be built (tried again on the next ask). `external` packages are
 * left to the thread's `require`, which resolves them from this package (`anchored`).
 */
export function workerScript(entry: string, options: { external?: string[] } = {}): () => string | Promise<string | null> {
  let built: string | null = null;
  let building: Promise<string | null> | null = null;
  return () => {
    if (built !== null) return built;
    const prebuilt = prebuiltScript(entry);
    if (prebuilt !== null) return (built = anchored(prebuilt));
    building ??= (async () => {
      const fromTsx = createRequire(createRequire(import.meta.url).resolve('tsx/package.json'));
      const esbuild = fromTsx('esbuild') as typeof import('esbuild');
      const out = await esbuild.build({
        entryPoints: [entry],
        tsconfig: path.join(packageRoot(), 'tsconfig.json'),
        bundle: true, platform: 'node', format: 'cjs', target: 'node20', write: false, logLevel: 'silent',
        external: options.external,
      });
      return (built = anchored(out.outputFiles[0]!.text));
    })().catch(() => {
      building = null;
      return null;
    });
    return building;
  };
}
