/**
 * A worker thread's code: its entry module and what that imports bundled into one CommonJS script
 * by esbuild (the TypeScript toolchain tsx runs the CLI with), so the thread starts in milliseconds
 * instead of loading a TypeScript loader. Used by the rebuild's helper thread and the ingest thread.
 */
import { createRequire } from 'node:module';
import path from 'node:path';
import { packageRoot } from '@/lib/package-root';

/**
 * The script of `entry`, built once per process by esbuild's own process (the asynchronous API,
 * so the caller can do other work meanwhile): the script itself once built, else the build's
 * promise; null when it cannot be built (tried again on the next ask). `external` packages are
 * left to the thread's `require`.
 */
export function workerScript(entry: string, options: { external?: string[] } = {}): () => string | Promise<string | null> {
  let built: string | null = null;
  let building: Promise<string | null> | null = null;
  return () => {
    if (built !== null) return built;
    building ??= (async () => {
      const fromTsx = createRequire(createRequire(import.meta.url).resolve('tsx/package.json'));
      const esbuild = fromTsx('esbuild') as typeof import('esbuild');
      const out = await esbuild.build({
        entryPoints: [entry],
        tsconfig: path.join(packageRoot(), 'tsconfig.json'),
        bundle: true, platform: 'node', format: 'cjs', target: 'node20', write: false, logLevel: 'silent',
        external: options.external,
      });
      return (built = out.outputFiles[0]!.text);
    })().catch(() => {
      building = null;
      return null;
    });
    return building;
  };
}
