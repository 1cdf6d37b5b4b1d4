/**
 * The paging agents of the browser tests, synced through the real pipeline:
 * - Orion: sequence 0 creates PAGING.items sections in one file (more ops than a page draws) beside
 *   PAGING.notes plain-text files under memory/vault/ (raw files without records, listed after the
 *   catalog: more than a page of raw files), and
 *   sequence 1 updates PAGING.updated of them, both just before this week began but within 7 days
 *   (more than 1,000 changes in a week, without crowding this week's fleet feed the other specs read);
 * - Kepler: one memory rewritten in PAGING.versions syncs (a lineage of that many versions).
 */
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { syncWorkspace } from '@/lib/sync/sync';
import type { localTarget } from '@/lib/sync/local-target';

export const PAGING = { orion: 'Orion', kepler: 'Kepler', file: 'memory/semantic/catalog.md', items: 2100, updated: 1000, versions: 130, notes: 150 } as const;

export interface PagingSeed {
  orion: { agentId: string; agentName: string; file: string; items: number; updated: number; notes: string[]; syncedAt: string[] };
  kepler: { agentId: string; agentName: string; file: string; heading: string; versions: number };
}

const DAY = 86_400_000;
const item = (i: number) => `Item ${String(i).padStart(4, '0')}`;

function catalog(updated: number): string {
  const sections = Array.from({ length: PAGING.items }, (_, i) =>
    `## ${item(i)}\n\n${item(i)} is catalog entry ${i < updated ? 'revised' : 'number'} ${i + 1}.\n`);
  return `# Catalog\n\n${sections.join('\n')}`;
}

async function write(dir: string, files: Record<string, string>): Promise<void> {
  for (const [rel, text] of Object.entries(files)) {
    const abs = path.join(dir, ...rel.split('/'));
    await mkdir(path.dirname(abs), { recursive: true });
    await writeFile(abs, text);
  }
}

export async function seedPaging(scratch: string, alfHome: string, now: Date, setClock: (at: Date) => void, target: ReturnType<typeof localTarget>): Promise<PagingSeed> {
  const weekStart = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate()) - ((now.getUTCDay() + 6) % 7) * DAY;
  const base = Math.max(weekStart - 30 * 60_000, now.getTime() - 7 * DAY + 20 * 60_000);
  const sync = async (workspace: string, at: Date) => {
    setClock(at);
    return syncWorkspace({ runtime: 'openclaw', workspace, target, alfHome, clock: () => at });
  };

  const orionDir = path.join(scratch, 'orion');
  const notes = Array.from({ length: PAGING.notes }, (_, i) => `memory/vault/note-${String(i).padStart(3, '0')}.txt`);
  await write(orionDir, { 'IDENTITY.md': `# Identity\n\nName: ${PAGING.orion}\n`, [PAGING.file]: catalog(0), ...Object.fromEntries(notes.map((n, i) => [n, `Note ${i}\n`])) });
  const times = [new Date(base), new Date(base + 5 * 60_000)];
  const first = await sync(orionDir, times[0]!);
  await write(orionDir, { [PAGING.file]: catalog(PAGING.updated) });
  await sync(orionDir, times[1]!);

  const keplerDir = path.join(scratch, 'kepler');
  const heading = 'Orbit log';
  const file = 'memory/semantic/orbit.md';
  let keplerId = '';
  for (let v = 0; v < PAGING.versions; v += 1) {
    const files: Record<string, string> = v === 0 ? { 'IDENTITY.md': `# Identity\n\nName: ${PAGING.kepler}\n` } : {};
    await write(keplerDir, { ...files, [file]: `# Orbit\n\n## ${heading}\n\nOrbit ${v + 1} of ${PAGING.versions} completed.\n` });
    const out = await sync(keplerDir, new Date(base + 10 * 60_000 + v * 1000));
    keplerId = out.agent.alf_agent_id;
  }
  return {
    orion: { agentId: first.agent.alf_agent_id, agentName: PAGING.orion, file: PAGING.file, items: PAGING.items, updated: PAGING.updated, notes, syncedAt: times.map((t) => t.toISOString()) },
    kepler: { agentId: keplerId, agentName: PAGING.kepler, file, heading, versions: PAGING.versions },
  };
}
