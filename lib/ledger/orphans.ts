import fs from 'node:fs/promises';
import path from 'node:path';
import { FsBlobStore } from './blob-store';
import { findUnreferencedBlobs } from './consistency';
import type { Ledger } from './ledger';

/** What a sweep did and saw. */
export interface SweepResult {
  /** Staging files removed. */
  removed: number;
  /** Blob files with no ledger entry (kept). */
  unledgered: number;
  /** Of those, the ones that continue their agent's ledger: acknowledged uploads whose commit was lost. */
  chaining: number;
  /** Blob files deleted agents left (an interrupted delete; kept until `lineage doctor --repair`). */
  leftovers: number;
}

/**
 * Removes the staging files of blob writes that never finished (`*.tmp-*`, older than `graceMs`):
 * their upload was never acknowledged. No blob is ever deleted (issue 18 §8): a blob without an
 * entry may be an acknowledged upload whose commit a lost WAL took, and only its file can bring it
 * back. Those that chain onto their agent's latest sequence are reported loudly, with the command
 * that re-ingests them.
 */
export async function sweepOrphanBlobs(params: {
  ledger: Ledger; now: Date; graceMs?: number; warn?: (line: string) => void;
}): Promise<SweepResult> {
  const store = params.ledger.blobs;
  if (!(store instanceof FsBlobStore)) return { removed: 0, unledgered: 0, chaining: 0, leftovers: 0 };
  const cutoff = params.now.getTime() - (params.graceMs ?? 15 * 60 * 1000);
  let names: string[];
  try {
    names = await fs.readdir(store.root);
  } catch {
    return { removed: 0, unledgered: 0, chaining: 0, leftovers: 0 };
  }
  let removed = 0;
  for (const name of names) {
    if (!/\.alf(-delta)?\.tmp-/.test(name)) continue;
    const file = path.join(store.root, name);
    const stat = await fs.stat(file).catch(() => null);
    if (!stat?.isFile() || stat.mtimeMs > cutoff) continue;
    await fs.rm(file, { force: true });
    removed++;
  }
  const { unledgered, leftovers } = await findUnreferencedBlobs(params.ledger);
  const chaining = unledgered.filter((b) => b.chains);
  const warn = params.warn ?? ((line: string) => console.error(line));
  if (leftovers.length > 0) {
    const agents = [...new Set(leftovers.map((b) => b.agent_id))];
    warn(`[lineage] WARNING: ${leftovers.length} blob(s) of ${agents.length} deleted agent(s) (${agents.join(', ')}) are left by an interrupted ` +
      `delete (not brought back). Run \`lineage doctor --repair --data ${params.ledger.db.dataDir}\` with the server stopped to finish the deletion.`);
  }
  if (chaining.length > 0) {
    const agents = [...new Set(chaining.map((b) => b.agent_id))];
    warn(
      `[lineage] WARNING: ${chaining.length} stored upload(s) of ${agents.length} agent(s) (${agents.join(', ')}) continue the ledger but have no ` +
      `ledger entry: the database lost commits (a deleted or damaged lineage.db-wal?). Their blobs are kept. ` +
      `Run \`lineage doctor --repair --data ${params.ledger.db.dataDir}\` with the server stopped to re-ingest them.`);
  }
  return { removed, unledgered: unledgered.length, chaining: chaining.length, leftovers: leftovers.length };
}
