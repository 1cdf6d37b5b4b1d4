import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const PACKAGE_NAME = 'alf-lineage';
let found: string | null = null;

/**
 * The directory of this package (where `package.json`, `db/migrations`, `lib/` and `.next/` live):
 * the nearest directory above this module whose `package.json` is ours. Found the same way from
 * the TypeScript sources, from the CLI's bundle (`.cli/`) and from Next.js's server build.
 */
export function packageRoot(): string {
  if (found !== null) return found;
  const start = path.dirname(fileURLToPath(import.meta.url));
  for (let dir = start; ; dir = path.dirname(dir)) {
    try {
      const manifest = JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8')) as { name?: unknown };
      if (manifest.name === PACKAGE_NAME) return (found = dir);
    } catch {
      // no package.json here, or not JSON: keep going up
    }
    if (path.dirname(dir) === dir) break;
  }
  // Not found above this module (a bundler moved it somewhere else): the working directory's.
  return (found = process.cwd());
}
