/**
 * ZeroClaw's `config.toml` (its API keys) in the workspace's root is never carried: a link to it
 * from `memory/` or from a root prose file is left out and named in the warnings; a plain copy of
 * it the user put in `memory/` is the user's own file and is carried as it is. Real files, real
 * links, the real export.
 */
import { symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { zeroclawAdapter } from '../zeroclaw/index';
import { fixedClock, seedBrainDb, tempDir } from '../zeroclaw/test-support';

const AGENT = 'a1b2c3d4-e5f6-4a7b-8c9d-0e1f2a3b4c5d';
const CONFIG = 'default_provider = "openrouter"\napi_key = "sk-or-secret-77"\n';

async function workspace(): Promise<string> {
  const ws = await tempDir('zcconfig');
  await writeFile(path.join(ws, '.alf-agent-id'), AGENT);
  await seedBrainDb({ workspace: ws, agents: [{ id: AGENT, alias: 'alpha', created_at: '2026-01-01T00:00:00Z' }], rows: [] });
  await writeFile(path.join(ws, 'config.toml'), CONFIG);
  await writeFile(path.join(ws, 'memory', 'notes.md'), 'notes\n');
  return ws;
}

const exportOf = (ws: string) => zeroclawAdapter.exportWorkspace({ workspace: ws, runtimeAgent: 'alpha', persistAgentId: false, clock: fixedClock });
const files = (raw: ReadonlyMap<string, Uint8Array>) => [...raw.keys()].filter((rel) => !rel.startsWith('.alf-brain')).sort();
const linkWarnings = (warnings: string[] | undefined) => (warnings ?? []).filter((w) => w.includes('symbolic link'));

describe('ZeroClaw config.toml through a link', () => {
  it('memory/c -> ../config.toml is not carried, and is warned of', async () => {
    const ws = await workspace();
    await symlink('../config.toml', path.join(ws, 'memory', 'c'));
    const result = await exportOf(ws);
    expect(files(result.raw)).toEqual(['memory/notes.md']);
    for (const [rel, bytes] of result.raw) expect(Buffer.from(bytes).toString('latin1'), rel).not.toContain('sk-or-secret-77');
    expect(linkWarnings(result.warnings)).toEqual([
      'memory/c is a symbolic link to config.toml, a file of the workspace a sync never carries under another name (a secret, a database or a control file): it is not synced',
    ]);
  });

  it('SOUL.md -> config.toml is not carried either', async () => {
    const ws = await workspace();
    await symlink('config.toml', path.join(ws, 'SOUL.md'));
    const result = await exportOf(ws);
    expect(files(result.raw)).toEqual(['memory/notes.md']);
    expect(linkWarnings(result.warnings)).toEqual([expect.stringMatching(/^SOUL\.md is a symbolic link to config\.toml, /)]);
  });

  it('a plain copy of config.toml in memory/ is the user\'s own file: carried as it is, without a warning', async () => {
    const ws = await workspace();
    await writeFile(path.join(ws, 'memory', 'config.toml'), CONFIG);
    const result = await exportOf(ws);
    expect(files(result.raw)).toEqual(['memory/config.toml', 'memory/notes.md']);
    expect(Buffer.from(result.raw.get('memory/config.toml')!).toString()).toBe(CONFIG);
    expect(linkWarnings(result.warnings)).toEqual([]);
  });

  it('a link to another .toml in the workspace is carried, as any link inside it', async () => {
    const ws = await workspace();
    await writeFile(path.join(ws, 'prefs.toml'), 'theme = "dark"\n');
    await symlink('../prefs.toml', path.join(ws, 'memory', 'prefs.toml'));
    const result = await exportOf(ws);
    expect(files(result.raw)).toEqual(['memory/notes.md', 'memory/prefs.toml']);
  });
});
