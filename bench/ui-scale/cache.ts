/**
 * The generated ui-scale data directory, cached under the system temp dir by generator version,
 * shape and migration journal, so a rerun of the bench skips the generation. A cache entry is
 * complete only once its manifest.json exists: a generation is written beside it and renamed into
 * place. When the journal has grown, an entry of the same generator and shape whose database took
 * a prefix of today's migrations is copied and migrated — the upgrade a user's data directory gets
 * (`openLedger`), each migration filling what it adds from what is there — instead of generated
 * again (~70 minutes); the manifest says which entry it came from.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { closeDatabase } from '@/db/client';
import { openLedger } from '@/lib/ledger';
import { packageRoot } from '@/lib/package-root';
import { GENERATOR_VERSION, generateUiScale, type UiScaleManifest, type UiScaleShape } from './generate';

const journalFile = () => path.join(packageRoot(), 'db', 'migrations', 'meta', '_journal.json');
const cacheRoot = () => process.env.LINEAGE_BENCH_CACHE ?? path.join(os.tmpdir(), 'alf-lineage-bench-cache');
const entryPrefix = (shape: UiScaleShape) => `ui-scale-v${GENERATOR_VERSION}-${shape.agents}x${shape.syncs}-${shape.bigMemories}x${shape.bigSyncs}-`;

export function cacheDir(shape: UiScaleShape): string {
  const schema = createHash('sha256').update(fs.readFileSync(journalFile())).digest('hex').slice(0, 10);
  return path.join(cacheRoot(), `${entryPrefix(shape)}${schema}`);
}

export interface CachedFleet { dir: string; dataDir: string; manifest: UiScaleManifest; cached: boolean }

/** The times (`when`) of today's migrations, in order: what drizzle records in __drizzle_migrations.created_at. */
function journalTimes(): number[] {
  return (JSON.parse(fs.readFileSync(journalFile(), 'utf8')) as { entries: { when: number }[] }).entries.map((e) => e.when);
}

/** The complete entry of this shape whose migrations are the longest proper prefix of today's, if any. */
function upgradeableEntry(shape: UiScaleShape, current: string): string | null {
  if (!fs.existsSync(cacheRoot())) return null;
  const today = journalTimes();
  let best: { dir: string; applied: number } | null = null;
  for (const name of fs.readdirSync(cacheRoot())) {
    const dir = path.join(cacheRoot(), name);
    if (!name.startsWith(entryPrefix(shape)) || name.includes('.tmp-') || dir === current || !fs.existsSync(path.join(dir, 'manifest.json'))) continue;
    const db = new Database(path.join(dir, 'data', 'lineage.db'), { readonly: true, fileMustExist: true });
    try {
      const applied = db.prepare('SELECT created_at FROM __drizzle_migrations ORDER BY created_at').pluck().all().map(Number);
      const prefix = applied.length < today.length && applied.every((when, i) => when === today[i]);
      if (prefix && (!best || applied.length > best.applied)) best = { dir, applied: applied.length };
    } finally {
      db.close();
    }
  }
  return best?.dir ?? null;
}

export async function cachedFleet(shape: UiScaleShape, log: (line: string) => void): Promise<CachedFleet> {
  const dir = cacheDir(shape);
  const manifestFile = path.join(dir, 'manifest.json');
  if (fs.existsSync(manifestFile)) {
    log(`ui-scale: cached fleet at ${dir}`);
    return { dir, dataDir: path.join(dir, 'data'), manifest: JSON.parse(fs.readFileSync(manifestFile, 'utf8')) as UiScaleManifest, cached: true };
  }
  const staging = `${dir}.tmp-${process.pid}`;
  fs.rmSync(staging, { recursive: true, force: true });
  const older = upgradeableEntry(shape, dir);
  if (older) {
    const t0 = performance.now();
    log(`ui-scale: upgrading the cached fleet ${path.basename(older)} to today's migrations`);
    fs.cpSync(older, staging, { recursive: true });
    closeDatabase(openLedger(path.join(staging, 'data')).db);
    const manifest = { ...(JSON.parse(fs.readFileSync(path.join(older, 'manifest.json'), 'utf8')) as UiScaleManifest), upgradedFrom: path.basename(older) };
    fs.writeFileSync(path.join(staging, 'manifest.json'), `${JSON.stringify(manifest, null, 2)}\n`);
    fs.renameSync(staging, dir);
    log(`ui-scale: upgraded in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
    return { dir, dataDir: path.join(dir, 'data'), manifest, cached: true };
  }
  fs.mkdirSync(staging, { recursive: true });
  log(`ui-scale: generating ${shape.agents} agents × ${shape.syncs} syncs + 1 agent with ${shape.bigMemories} memories × ${shape.bigSyncs} syncs in ${staging}`);
  const manifest = await generateUiScale({ root: staging, shape, log });
  // The workspaces and client states only served the generation's closing proof.
  for (const scratch of ['ws', 'alf']) fs.rmSync(path.join(staging, scratch), { recursive: true, force: true });
  fs.renameSync(staging, dir);
  log(`ui-scale: generated in ${(manifest.generateMs / 1000).toFixed(1)} s`);
  return { dir, dataDir: path.join(dir, 'data'), manifest, cached: false };
}
