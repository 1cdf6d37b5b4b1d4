/**
 * A symbolic link that leads out of the workspace is not followed (a sync carries only what lies
 * inside it), and the user is told: one warning per such link, naming it and where it leads — a
 * root file looked up by name (`MEMORY.md -> ~/Dropbox/notes.md`), a file or a directory link in a
 * walked directory, a walked directory itself. `.alfignore` leaves a link out of the warnings as it
 * does of the sync. Real files, real links, each runtime's real export (both OpenClaw exports).
 */
import { mkdir, mkdtemp, realpath, rm, symlink, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { hermesAdapter } from '../hermes/index';
import { openclawAdapter } from '../openclaw/index';
import { exportOpenclawChanges } from '../openclaw/export-changes';
import { zeroclawAdapter } from '../zeroclaw/index';
import { fixedClock, seedBrainDb, tempDir } from '../zeroclaw/test-support';

const AGENT = 'a1b2c3d4-e5f6-4a7b-8c9d-0e1f2a3b4c5d';
/** Each runtime, its walked directory and a root file it looks up by name. */
const RUNTIMES = [['openclaw', 'memory', 'MEMORY.md'], ['hermes', 'memories', 'SOUL.md'], ['zeroclaw', 'memory', 'SOUL.md']] as const;
type RuntimeName = (typeof RUNTIMES)[number][0];

const leadsOut = (rel: string, real: string) =>
  `${rel} is a symbolic link to ${real}, outside the workspace: it is not synced (a sync carries only what lies inside the workspace; move it in, and link the other way round if something else needs it there)`;

/** A directory elsewhere (`~/Dropbox`): a notes file and a directory of notes. */
async function elsewhere(): Promise<string> {
  const dir = await realpath(await mkdtemp(path.join(os.tmpdir(), 'lineage-outside-')));
  await writeFile(path.join(dir, 'notes.md'), '## Elsewhere\nkept in Dropbox\n');
  await mkdir(path.join(dir, 'daily'));
  await writeFile(path.join(dir, 'daily', 'd.md'), '## Day\nelsewhere too\n');
  return dir;
}

async function workspace(runtime: RuntimeName, dir: string): Promise<string> {
  const ws = await tempDir('linkoutside');
  await writeFile(path.join(ws, '.alf-agent-id'), AGENT);
  if (runtime === 'zeroclaw') await seedBrainDb({ workspace: ws, rel: 'data/memory/brain.db', agents: [{ id: AGENT, alias: 'alpha', created_at: '2026-01-01T00:00:00Z' }], rows: [] });
  await mkdir(path.join(ws, dir));
  await writeFile(path.join(ws, dir, 'own.md'), '## Own\nnotes of the workspace\n');
  return ws;
}

async function exported(runtime: RuntimeName, ws: string): Promise<{ raw: string[]; warnings: string[] }> {
  const adapter = runtime === 'openclaw' ? openclawAdapter : runtime === 'hermes' ? hermesAdapter : zeroclawAdapter;
  const result = await adapter.exportWorkspace({ workspace: ws, runtimeAgent: runtime === 'zeroclaw' ? 'alpha' : undefined, persistAgentId: false, clock: fixedClock });
  const warnings = (result.warnings ?? []).filter((w) => w.includes('symbolic link'));
  if (runtime === 'openclaw') {
    const changes = await exportOpenclawChanges({ workspace: ws, persistAgentId: false, clock: fixedClock }, async () => null);
    expect(changes.warnings.filter((w) => w.includes('symbolic link'))).toEqual(warnings);
    expect(changes.files.map((file) => file.rel).sort()).toEqual([...result.raw.keys()].filter((rel) => !rel.startsWith('.alf-')).sort());
  }
  return { raw: [...result.raw.keys()].filter((rel) => !rel.startsWith('.alf-')), warnings };
}

describe('a link out of the workspace is warned of, once, and not synced', () => {
  it.each(RUNTIMES)('%s: a root file, a file link and a directory link in the walked directory', async (runtime, dir, rootFile) => {
    const out = await elsewhere();
    const ws = await workspace(runtime, dir);
    await symlink(path.join(out, 'notes.md'), path.join(ws, rootFile));
    await symlink(path.join(out, 'notes.md'), path.join(ws, dir, 'x.md'));
    await symlink(path.join(out, 'daily'), path.join(ws, dir, 'daily'));
    const { raw, warnings } = await exported(runtime, ws);
    expect(raw).toEqual([`${dir}/own.md`]);
    expect(warnings).toEqual([
      ...(rootFile < dir ? [leadsOut(rootFile, path.join(out, 'notes.md'))] : []),
      leadsOut(`${dir}/daily`, path.join(out, 'daily')),
      leadsOut(`${dir}/x.md`, path.join(out, 'notes.md')),
      ...(rootFile > dir ? [leadsOut(rootFile, path.join(out, 'notes.md'))] : []),
    ]);
  });

  it.each(RUNTIMES)('%s: the walked directory itself a link out of the workspace', async (runtime, dir) => {
    const out = await elsewhere();
    const ws = await workspace(runtime, dir);
    // the directory replaced by a link to one elsewhere
    await rm(path.join(ws, dir), { recursive: true });
    await symlink(out, path.join(ws, dir));
    const { raw, warnings } = await exported(runtime, ws);
    expect(raw).toEqual([]);
    expect(warnings).toEqual([leadsOut(dir, out)]);
  });

  it.each(RUNTIMES)('%s: a link .alfignore leaves out (itself, or under an ignored directory) is not warned of', async (runtime, dir, rootFile) => {
    const out = await elsewhere();
    const ws = await workspace(runtime, dir);
    await mkdir(path.join(ws, dir, 'private'));
    await symlink(path.join(out, 'notes.md'), path.join(ws, dir, 'private', 'x.md'));
    await symlink(path.join(out, 'daily'), path.join(ws, dir, 'daily'));
    await symlink(path.join(out, 'notes.md'), path.join(ws, rootFile));
    await writeFile(path.join(ws, '.alfignore'), `${dir}/private/\ndaily/\n${rootFile}\n`);
    expect((await exported(runtime, ws)).warnings).toEqual([]);
  });

  it.each(RUNTIMES)('%s: a link inside the workspace, and a link to nothing, are not warned of as leading out', async (runtime, dir) => {
    const ws = await workspace(runtime, dir);
    await symlink('own.md', path.join(ws, dir, 'inside.md'));
    await symlink(path.join(ws, 'gone.md'), path.join(ws, dir, 'dangling.md'));
    const { raw, warnings } = await exported(runtime, ws);
    expect(raw).toEqual([`${dir}/inside.md`, `${dir}/own.md`]);
    expect(warnings).toEqual([]);
  });
});
