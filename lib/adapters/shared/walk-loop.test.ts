/**
 * A symlinked directory that leads back up the workspace (to the directory holding it, the root,
 * any ancestor between) is a loop: never walked, said once in the export's warnings. A link to a
 * sibling directory inside the workspace is followed, as before. A link to one of the workspace's
 * control files is never carried. Real files, real links, each runtime's real export.
 */
import { mkdir, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { hermesAdapter } from '../hermes/index';
import { seedStateDb } from '../hermes/test-support';
import { openclawAdapter } from '../openclaw/index';
import { exportOpenclawChanges } from '../openclaw/export-changes';
import { zeroclawAdapter } from '../zeroclaw/index';
import { fixedClock, seedBrainDb, tempDir } from '../zeroclaw/test-support';
import { isFileInside, walkFiles } from './walk';

const AGENT = 'a1b2c3d4-e5f6-4a7b-8c9d-0e1f2a3b4c5d';

/** A workspace with root files and the control files, and `dir/notes.md`, `dir/sub/deep.md`, `shared/s.md`. */
async function workspace(dir: string): Promise<string> {
  const ws = await tempDir('walkloop');
  await writeFile(path.join(ws, '.alf-agent-id'), AGENT);
  await writeFile(path.join(ws, '.alf-synced.json'), '{}');
  await writeFile(path.join(ws, 'SOUL.md'), '# Soul\n');
  await mkdir(path.join(ws, dir, 'sub'), { recursive: true });
  await writeFile(path.join(ws, dir, 'notes.md'), 'notes\n');
  await writeFile(path.join(ws, dir, 'sub', 'deep.md'), 'deep\n');
  await mkdir(path.join(ws, 'shared'));
  await writeFile(path.join(ws, 'shared', 's.md'), 'shared\n');
  return ws;
}

/** The links of each case, made under `dir`: [link path, target]. */
const LOOPS: [string, (dir: string) => [string, string][]][] = [
  ['a link to ..', (dir) => [[`${dir}/loop`, '..']]],
  ['a link to the root itself (absolute)', (dir) => [[`${dir}/loop`, '<root>']]],
  ['a link to its own directory', (dir) => [[`${dir}/sub/self`, '.']]],
  ['a link two levels up', (dir) => [[`${dir}/sub/up2`, '../..']]],
  ['a link one level up, from below', (dir) => [[`${dir}/sub/up1`, '..']]],
];

async function link(ws: string, links: [string, string][]): Promise<void> {
  for (const [at, target] of links) await symlink(target === '<root>' ? ws : target, path.join(ws, ...at.split('/')));
}

const PLAIN = (dir: string) => [`${dir}/notes.md`, `${dir}/sub/deep.md`];

describe('walkFiles: a symlinked directory leading back up is a loop', () => {
  it.each(LOOPS)('%s is not entered and is reported, starting below the root', async (_name, links) => {
    const ws = await workspace('memory');
    await link(ws, links('memory'));
    const skipped: string[] = [];
    expect(await walkFiles(ws, 'memory', skipped)).toEqual(PLAIN('memory'));
    expect(skipped).toEqual([links('memory')[0]![0]]);
  });

  it.each(LOOPS)('%s is not entered when the walk starts at the root either', async (_name, links) => {
    const ws = await workspace('memory');
    await link(ws, links('memory'));
    const skipped: string[] = [];
    const files = await walkFiles(ws, '', skipped);
    expect(files.filter((rel) => rel.startsWith('memory/'))).toEqual(PLAIN('memory'));
    expect(skipped).toEqual([links('memory')[0]![0]]);
  });

  it('a walked directory that is itself a link to the root is not walked', async () => {
    const ws = await tempDir('walkloop');
    await writeFile(path.join(ws, '.alf-agent-id'), AGENT);
    await symlink('.', path.join(ws, 'memory'));
    const skipped: string[] = [];
    expect(await walkFiles(ws, 'memory', skipped)).toEqual([]);
    expect(skipped).toEqual(['memory']);
  });

  it('a link to a sibling directory inside the workspace is followed, as before', async () => {
    const ws = await workspace('memory');
    await symlink('../shared', path.join(ws, 'memory', 'shared'));
    await symlink('sub', path.join(ws, 'memory', 'alias')); // a link down: not a loop either
    const skipped: string[] = [];
    const files = await walkFiles(ws, 'memory', skipped);
    expect(files).toContain('memory/shared/s.md');
    expect(files.filter((rel) => rel.endsWith('deep.md'))).toHaveLength(1); // one real directory, walked once
    expect(skipped).toEqual([]);
  });

  it('a link to a control file of the root is never listed; a link to another root file is', async () => {
    const ws = await workspace('memory');
    await symlink('../.alf-agent-id', path.join(ws, 'memory', 'id.md'));
    await symlink('../.alf-synced.json', path.join(ws, 'memory', 'synced.json'));
    await symlink('../SOUL.md', path.join(ws, 'memory', 'soul.md'));
    await symlink('.alf-agent-id', path.join(ws, 'USER.md'));
    const skipped: string[] = [];
    expect(await walkFiles(ws, 'memory', skipped)).toEqual(['memory/notes.md', 'memory/soul.md', 'memory/sub/deep.md']);
    expect(skipped.sort()).toEqual(['memory/id.md', 'memory/synced.json']);
    expect(await isFileInside(ws, 'USER.md')).toBe(false);
    expect(await isFileInside(ws, '.alf-agent-id')).toBe(true);
  });
});

const LOOP_WARNING = /^memory\/loop is a symbolic link to a directory that holds it/;

describe('each runtime export: a loop link carries nothing twice and is said once', () => {
  const sentinels = (raw: Iterable<string>) => [...raw].filter((rel) => /(^|\/)\.alf-(agent-id|synced\.json)$/.test(rel) || rel.includes('/loop/'));

  it.each(LOOPS)('OpenClaw memory/: %s', async (_name, links) => {
    const ws = await workspace('memory');
    await link(ws, links('memory'));
    const full = await openclawAdapter.exportWorkspace({ workspace: ws, persistAgentId: false, clock: fixedClock });
    expect([...full.raw.keys()].sort()).toEqual(['SOUL.md', ...PLAIN('memory')]);
    expect(sentinels(full.raw.keys())).toEqual([]);
    expect(full.warnings.filter((w) => w.includes('symbolic link'))).toEqual([expect.stringContaining(`${links('memory')[0]![0]} is a symbolic link`)]);
    const changes = await exportOpenclawChanges({ workspace: ws, persistAgentId: false, clock: fixedClock }, async () => null);
    expect(changes.files.map((file) => file.rel).sort()).toEqual(['SOUL.md', ...PLAIN('memory')]);
    expect(changes.warnings.filter((w) => w.includes('symbolic link'))).toHaveLength(1);
  });

  it('OpenClaw: the reported case (memory/loop -> ..) no longer uploads memory/loop/.alf-agent-id', async () => {
    const ws = await workspace('memory');
    await symlink('..', path.join(ws, 'memory', 'loop'));
    const result = await openclawAdapter.exportWorkspace({ workspace: ws, persistAgentId: false, clock: fixedClock });
    expect(result.raw.has('memory/loop/.alf-agent-id')).toBe(false);
    expect(result.warnings.filter((w) => LOOP_WARNING.test(w))).toHaveLength(1);
  });

  it.each(LOOPS)('Hermes raw dirs: %s', async (_name, links) => {
    const home = await workspace('memories');
    await link(home, links('memories'));
    const result = await hermesAdapter.exportWorkspace({ workspace: home, persistAgentId: false, clock: fixedClock });
    expect([...result.raw.keys()].sort()).toEqual(['SOUL.md', ...PLAIN('memories')]);
    expect(sentinels(result.raw.keys())).toEqual([]);
    expect(result.warnings.filter((w) => w.includes('symbolic link'))).toEqual([expect.stringContaining(`${links('memories')[0]![0]} is a symbolic link`)]);
  });

  it.each(LOOPS)('ZeroClaw raw dirs: %s', async (_name, links) => {
    const ws = await workspace('memory');
    await seedBrainDb({ workspace: ws, agents: [{ id: AGENT, alias: 'alpha', created_at: '2026-01-01T00:00:00Z' }], rows: [] });
    await link(ws, links('memory'));
    const result = await zeroclawAdapter.exportWorkspace({ workspace: ws, runtimeAgent: 'alpha', persistAgentId: false, clock: fixedClock });
    expect([...result.raw.keys()].filter((rel) => !rel.startsWith('.alf-brain')).sort()).toEqual(['SOUL.md', ...PLAIN('memory')]);
    expect(sentinels(result.raw.keys())).toEqual([]);
    expect(result.warnings.filter((w) => w.includes('symbolic link'))).toEqual([expect.stringContaining(`${links('memory')[0]![0]} is a symbolic link`)]);
  });

  it('a sibling-directory link is still carried, by each runtime', async () => {
    for (const [runtime, dir] of [['openclaw', 'memory'], ['hermes', 'memories'], ['zeroclaw', 'memory']] as const) {
      const ws = await workspace(dir);
      if (runtime === 'zeroclaw') await seedBrainDb({ workspace: ws, agents: [{ id: AGENT, alias: 'alpha', created_at: '2026-01-01T00:00:00Z' }], rows: [] });
      await symlink('../shared', path.join(ws, dir, 'shared'));
      const adapter = runtime === 'openclaw' ? openclawAdapter : runtime === 'hermes' ? hermesAdapter : zeroclawAdapter;
      const result = await adapter.exportWorkspace({ workspace: ws, runtimeAgent: runtime === 'zeroclaw' ? 'alpha' : undefined, persistAgentId: false, clock: fixedClock });
      expect(result.raw.has(`${dir}/shared/s.md`), runtime).toBe(true);
      expect(result.warnings.filter((w) => w.includes('symbolic link')), runtime).toEqual([]);
    }
  });
});

describe('a file link is judged by the file it leads to', () => {
  it('Hermes never carries .env, state.db or an unredacted config.yaml through a link in its raw dirs', async () => {
    const home = await workspace('memories');
    await writeFile(path.join(home, '.env'), 'OPENAI_API_KEY=sk-secret\n');
    await writeFile(path.join(home, 'config.yaml'), 'model: m1\napi_key: sk-secret\n');
    await seedStateDb(home, [], []);
    await symlink('../.env', path.join(home, 'memories', 'env.md'));
    await symlink('../config.yaml', path.join(home, 'memories', 'config.md'));
    await symlink('../state.db', path.join(home, 'memories', 'state.md'));
    await symlink('../SOUL.md', path.join(home, 'memories', 'soul.md'));
    const result = await hermesAdapter.exportWorkspace({ workspace: home, persistAgentId: false, clock: fixedClock });
    expect([...result.raw.keys()].filter((rel) => !rel.startsWith('.alf-state')).sort()).toEqual(['SOUL.md', 'config.yaml', 'memories/notes.md', 'memories/soul.md', 'memories/sub/deep.md']);
    for (const [rel, bytes] of result.raw) expect(Buffer.from(bytes).toString(), rel).not.toContain('sk-secret');
  });

  it('ZeroClaw never carries its database through a link in memory/', async () => {
    const ws = await workspace('memory');
    await seedBrainDb({ workspace: ws, agents: [{ id: AGENT, alias: 'alpha', created_at: '2026-01-01T00:00:00Z' }], rows: [] });
    await symlink('brain.db', path.join(ws, 'memory', 'copy.bin'));
    await symlink('notes.md', path.join(ws, 'memory', 'alias.md'));
    const result = await zeroclawAdapter.exportWorkspace({ workspace: ws, runtimeAgent: 'alpha', persistAgentId: false, clock: fixedClock });
    expect([...result.raw.keys()].filter((rel) => !rel.startsWith('.alf-brain')).sort()).toEqual(['SOUL.md', 'memory/alias.md', ...PLAIN('memory')]);
  });
});
