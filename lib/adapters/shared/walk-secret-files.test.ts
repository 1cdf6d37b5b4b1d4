/**
 * The runtimes' own secret stores in their home/workspace root are never carried, plainly or
 * through a link: Hermes' `auth.json` (NousResearch hermes-agent `hermes_cli/auth.py`: the auth
 * store, OAuth tokens and the credential pool, 0600) and ZeroClaw's `.secret_key` (zeroclaw
 * `src/security/secrets.rs`: the key its `config.toml` secrets are encrypted with, beside it, 0600).
 * A link to one is left out and named in the warnings, as a link to a `.env` is. Real exports.
 */
import { mkdir, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { canonicalJson } from '@/lib/core/json';
import { hermesAdapter } from '../hermes/index';
import { openclawAdapter } from '../openclaw/index';
import { exportOpenclawChanges } from '../openclaw/export-changes';
import { seedStateDb } from '../hermes/test-support';
import { zeroclawAdapter } from '../zeroclaw/index';
import { fixedClock, seedBrainDb, tempDir } from '../zeroclaw/test-support';
import type { ExportResult } from '../types';

const AGENT = 'a1b2c3d4-e5f6-4a7b-8c9d-0e1f2a3b4c5d';
const SECRET = 'sk-secret-5151';

function uploaded(result: ExportResult): string {
  const raw = [...result.raw].map(([rel, bytes]) => `${rel}\n${Buffer.from(bytes).toString('latin1')}`);
  return [...raw, canonicalJson(result.layers as never), canonicalJson((result.records ?? []) as never)].join('\n');
}

const refusal = (rel: string, target: string) => `${rel} is a symbolic link to ${target}, a file of the workspace a sync never carries under another name (a secret, a database or a control file): it is not synced`;
const linkWarnings = (result: { warnings?: string[] }) => (result.warnings ?? []).filter((w) => w.includes('symbolic link'));

describe("Hermes' auth.json", () => {
  async function hermesHome(): Promise<string> {
    const dir = await tempDir('authjson');
    await writeFile(path.join(dir, '.alf-agent-id'), AGENT);
    await writeFile(path.join(dir, 'auth.json'), `{"providers":{"nous":{"access_token":"${SECRET}"}}}\n`);
    await seedStateDb(dir, [], []);
    await mkdir(path.join(dir, 'memories'));
    await writeFile(path.join(dir, 'memories', 'MEMORY.md'), 'Always run tests first.\n');
    return dir;
  }

  it('is not carried where it is', async () => {
    const result = await hermesAdapter.exportWorkspace({ workspace: await hermesHome(), persistAgentId: false, clock: fixedClock });
    expect([...result.raw.keys()].filter((rel) => !rel.startsWith('.alf-'))).toEqual(['memories/MEMORY.md']);
    expect(uploaded(result)).not.toContain(SECRET);
  });

  it.each([
    ['SOUL.md', 'auth.json'],
    ['memories/tokens.md', '../auth.json'],
    ['skill-bundles/auth.json', '../auth.json'],
  ])('%s -> %s is not carried, not read, and is warned of', async (rel, to) => {
    const dir = await hermesHome();
    await mkdir(path.dirname(path.join(dir, rel)), { recursive: true });
    await symlink(to, path.join(dir, ...rel.split('/')));
    const result = await hermesAdapter.exportWorkspace({ workspace: dir, persistAgentId: false, clock: fixedClock });
    expect(result.raw.has(rel)).toBe(false);
    expect(uploaded(result)).not.toContain(SECRET);
    expect(linkWarnings(result)).toEqual([refusal(rel, 'auth.json')]);
  });
});

describe("ZeroClaw's .secret_key", () => {
  async function zeroclawDir(): Promise<string> {
    const ws = await tempDir('secretkey');
    await writeFile(path.join(ws, '.alf-agent-id'), AGENT);
    await writeFile(path.join(ws, '.secret_key'), `${SECRET}\n`);
    await writeFile(path.join(ws, 'config.toml'), 'api_key = "enc2:00aa"\n');
    await seedBrainDb({ workspace: ws, rel: 'data/memory/brain.db', agents: [{ id: AGENT, alias: 'alpha', created_at: '2026-01-01T00:00:00Z' }], rows: [] });
    await mkdir(path.join(ws, 'memory'));
    await writeFile(path.join(ws, 'memory', 'notes.md'), '## Notes\nplain\n');
    return ws;
  }
  const exportOf = (ws: string) => zeroclawAdapter.exportWorkspace({ workspace: ws, runtimeAgent: 'alpha', persistAgentId: false, clock: fixedClock });

  it('is not carried where it is', async () => {
    const result = await exportOf(await zeroclawDir());
    expect([...result.raw.keys()].filter((rel) => !rel.startsWith('.alf-'))).toEqual(['memory/notes.md']);
    expect(uploaded(result)).not.toContain(SECRET);
  });

  it.each([
    ['SOUL.md', '.secret_key'],
    ['memory/key.md', '../.secret_key'],
  ])('%s -> %s is not carried, not read, and is warned of', async (rel, to) => {
    const ws = await zeroclawDir();
    await symlink(to, path.join(ws, ...rel.split('/')));
    const result = await exportOf(ws);
    expect(result.raw.has(rel)).toBe(false);
    expect(uploaded(result)).not.toContain(SECRET);
    expect(linkWarnings(result)).toEqual([refusal(rel, '.secret_key')]);
  });
});

describe('a plain .env in a walked directory', () => {
  it.each([['openclaw', 'memory'], ['hermes', 'memories'], ['zeroclaw', 'memory']] as const)('%s (%s/): a .env and a sub/.env.local in it are not carried (secrets, CONTRACT §9)', async (runtime, dir) => {
    const ws = await tempDir('plainenv');
    await writeFile(path.join(ws, '.alf-agent-id'), AGENT);
    if (runtime === 'zeroclaw') await seedBrainDb({ workspace: ws, rel: 'data/memory/brain.db', agents: [{ id: AGENT, alias: 'alpha', created_at: '2026-01-01T00:00:00Z' }], rows: [] });
    await mkdir(path.join(ws, dir, 'sub'), { recursive: true });
    await writeFile(path.join(ws, dir, 'notes.md'), '## Notes\nplain\n');
    await writeFile(path.join(ws, dir, '.env'), `KEY=${SECRET}\n`);
    await writeFile(path.join(ws, dir, 'sub', '.env.local'), `KEY=${SECRET}\n`);
    const adapter = runtime === 'openclaw' ? openclawAdapter : runtime === 'hermes' ? hermesAdapter : zeroclawAdapter;
    const result = await adapter.exportWorkspace({ workspace: ws, runtimeAgent: runtime === 'zeroclaw' ? 'alpha' : undefined, persistAgentId: false, clock: fixedClock });
    expect([...result.raw.keys()].filter((rel) => !rel.startsWith('.alf-'))).toEqual([`${dir}/notes.md`]);
    expect(uploaded(result)).not.toContain(SECRET);
    if (runtime === 'openclaw') {
      const changes = await exportOpenclawChanges({ workspace: ws, persistAgentId: false, clock: fixedClock }, async () => null);
      expect(changes.files.map((file) => file.rel)).toEqual([`${dir}/notes.md`]);
    }
  });
});
