/**
 * A link `.alfignore` leaves out is not synced anyway, so it is not warned of: a loop or a refused
 * file link under an ignored directory, or matched itself (a directory link by a pattern for
 * directories, `loop/`). One that is not ignored is still warned of. Each runtime's real export.
 */
import { mkdir, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { compileAlfIgnore } from './alfignore';
import { hermesAdapter } from '../hermes/index';
import { openclawAdapter } from '../openclaw/index';
import { exportOpenclawChanges } from '../openclaw/export-changes';
import { zeroclawAdapter } from '../zeroclaw/index';
import { fixedClock, seedBrainDb, tempDir } from '../zeroclaw/test-support';

const AGENT = 'a1b2c3d4-e5f6-4a7b-8c9d-0e1f2a3b4c5d';
const RUNTIMES = [['openclaw', 'memory'], ['hermes', 'memories'], ['zeroclaw', 'memory']] as const;

/** A workspace of `runtime` with `dir/private/` (a loop and a `.env` link in it), `dir/loop -> ..` and `dir/key -> ../.env`, and `.alfignore`. */
async function workspace(runtime: (typeof RUNTIMES)[number][0], dir: string, alfignore: string): Promise<string> {
  const ws = await tempDir('linkignored');
  await writeFile(path.join(ws, '.alf-agent-id'), AGENT);
  await writeFile(path.join(ws, '.env'), 'KEY=sk-secret\n');
  if (runtime === 'zeroclaw') await seedBrainDb({ workspace: ws, agents: [{ id: AGENT, alias: 'alpha', created_at: '2026-01-01T00:00:00Z' }], rows: [] });
  await mkdir(path.join(ws, dir, 'private'), { recursive: true });
  await writeFile(path.join(ws, dir, 'notes.md'), 'notes\n');
  await writeFile(path.join(ws, dir, 'private', 'p.md'), 'private\n');
  await symlink('..', path.join(ws, dir, 'private', 'up'));
  await symlink('../../.env', path.join(ws, dir, 'private', 'env.md'));
  await symlink('..', path.join(ws, dir, 'loop'));
  await symlink('../.env', path.join(ws, dir, 'key'));
  await writeFile(path.join(ws, '.alfignore'), alfignore);
  return ws;
}

async function linkWarnings(runtime: (typeof RUNTIMES)[number][0], ws: string): Promise<string[]> {
  const adapter = runtime === 'openclaw' ? openclawAdapter : runtime === 'hermes' ? hermesAdapter : zeroclawAdapter;
  const result = await adapter.exportWorkspace({ workspace: ws, runtimeAgent: runtime === 'zeroclaw' ? 'alpha' : undefined, persistAgentId: false, clock: fixedClock });
  const said = (result.warnings ?? []).filter((w) => w.includes('symbolic link')).map((w) => w.slice(0, w.indexOf(' ')));
  if (runtime === 'openclaw') {
    const changes = await exportOpenclawChanges({ workspace: ws, persistAgentId: false, clock: fixedClock }, async () => null);
    expect(changes.warnings.filter((w) => w.includes('symbolic link')).map((w) => w.slice(0, w.indexOf(' ')))).toEqual(said);
  }
  return said;
}

describe('link warnings follow .alfignore', () => {
  it.each(RUNTIMES)('%s: nothing ignored, every link is warned of', async (runtime, dir) => {
    const ws = await workspace(runtime, dir, '# nothing\n');
    expect(await linkWarnings(runtime, ws)).toEqual([`${dir}/key`, `${dir}/loop`, `${dir}/private/env.md`, `${dir}/private/up`]);
  });

  it.each(RUNTIMES)('%s: the links under an ignored directory are not warned of', async (runtime, dir) => {
    const ws = await workspace(runtime, dir, `${dir}/private/\n`);
    expect(await linkWarnings(runtime, ws)).toEqual([`${dir}/key`, `${dir}/loop`]);
  });

  it.each(RUNTIMES)('%s: a link ignored itself is not warned of (a directory link by a pattern for directories)', async (runtime, dir) => {
    const ws = await workspace(runtime, dir, 'loop/\nkey\nup\n');
    expect(await linkWarnings(runtime, ws)).toEqual([`${dir}/private/env.md`]);
  });

  it.each(RUNTIMES)('%s: a pattern for directories does not hide a file link of that name', async (runtime, dir) => {
    const ws = await workspace(runtime, dir, 'key/\n');
    expect(await linkWarnings(runtime, ws)).toEqual([`${dir}/key`, `${dir}/loop`, `${dir}/private/env.md`, `${dir}/private/up`]);
  });
});

describe('compileAlfIgnore: a path asked as a directory', () => {
  it('a pattern ending in / matches a directory, not a file', () => {
    const ignored = compileAlfIgnore('loop/\n');
    expect(ignored('memory/loop', true)).toBe(true);
    expect(ignored('memory/loop')).toBe(false);
    expect(ignored('memory/loop/x.md')).toBe(true);
  });
});
