/**
 * The generated ui-scale data directory, cached under the system temp dir by generator version,
 * shape and migration journal (an index written by other migrations is regenerated), so a rerun of
 * the bench skips the generation. A cache entry is complete only once its manifest.json exists: a
 * generation is written beside it and renamed into place.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { packageRoot } from '@/lib/package-root';
import { GENERATOR_VERSION, generateUiScale, type UiScaleManifest, type UiScaleShape } from './generate';

export function cacheDir(shape: UiScaleShape): string {
  const journal = fs.readFileSync(path.join(packageRoot(), 'db', 'migrations', 'meta', '_journal.json'));
  const schema = createHash('sha256').update(journal).digest('hex').slice(0, 10);
  const key = `ui-scale-v${GENERATOR_VERSION}-${shape.agents}x${shape.syncs}-${shape.bigMemories}x${shape.bigSyncs}-${schema}`;
  return path.join(process.env.LINEAGE_BENCH_CACHE ?? path.join(os.tmpdir(), 'alf-lineage-bench-cache'), key);
}

export interface CachedFleet { dir: string; dataDir: string; manifest: UiScaleManifest; cached: boolean }

export async function cachedFleet(shape: UiScaleShape, log: (line: string) => void): Promise<CachedFleet> {
  const dir = cacheDir(shape);
  const manifestFile = path.join(dir, 'manifest.json');
  if (fs.existsSync(manifestFile)) {
    log(`ui-scale: cached fleet at ${dir}`);
    return { dir, dataDir: path.join(dir, 'data'), manifest: JSON.parse(fs.readFileSync(manifestFile, 'utf8')) as UiScaleManifest, cached: true };
  }
  const staging = `${dir}.tmp-${process.pid}`;
  fs.rmSync(staging, { recursive: true, force: true });
  fs.mkdirSync(staging, { recursive: true });
  log(`ui-scale: generating ${shape.agents} agents × ${shape.syncs} syncs + 1 agent with ${shape.bigMemories} memories × ${shape.bigSyncs} syncs in ${staging}`);
  const manifest = await generateUiScale({ root: staging, shape, log });
  // The workspaces and client states only served the generation's closing proof.
  for (const scratch of ['ws', 'alf']) fs.rmSync(path.join(staging, scratch), { recursive: true, force: true });
  fs.renameSync(staging, dir);
  log(`ui-scale: generated in ${(manifest.generateMs / 1000).toFixed(1)} s`);
  return { dir, dataDir: path.join(dir, 'data'), manifest, cached: false };
}
