/**
 * A root file a runtime looks up by name (`SOUL.md`, `MEMORY.md`, ...) that is a symbolic link is
 * judged by the file it leads to, as a link a walk lists is: one to a secret, a database or a
 * control file is not carried, nor read into a layer or a record, and is named in the warnings.
 * Real files, real links, each runtime's real export.
 */
import { mkdir, mkdtemp, realpath, symlink, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { canonicalJson } from '@/lib/core/json';
import { hermesAdapter } from '../hermes/index';
import { seedStateDb } from '../hermes/test-support';
import { openclawAdapter } from '../openclaw/index';
import { exportOpenclawChanges } from '../openclaw/export-changes';
import { zeroclawAdapter } from '../zeroclaw/index';
import { fixedClock, seedBrainDb, tempDir } from '../zeroclaw/test-support';
import type { ExportResult } from '../types';

const AGENT = 'a1b2c3d4-e5f6-4a7b-8c9d-0e1f2a3b4c5d';
const SECRET = 'sk-secret-4242';

/** Everything an export would upload, as text: the raw files, the layers and the records. */
function uploaded(result: ExportResult): string {
  const raw = [...result.raw].map(([rel, bytes]) => `${rel}\n${Buffer.from(bytes).toString('latin1')}`);
  return [...raw, canonicalJson(result.layers as never), canonicalJson((result.records ?? []) as never)].join('\n');
}

const linkWarnings = (result: { warnings?: string[] }) => (result.warnings ?? []).filter((w) => w.includes('symbolic link'));
const refusal = (rel: string, target: string) => `${rel} is a symbolic link to ${target}, a file of the workspace a sync never carries under another name (a secret, a database or a control file): it is not synced`;

async function home(): Promise<string> {
  const dir = await tempDir('rootlinks');
  await writeFile(path.join(dir, '.alf-agent-id'), AGENT);
  return dir;
}

describe('Hermes: a root file that is a link is judged by its target', () => {
  async function hermesHome(): Promise<string> {
    const dir = await home();
    await writeFile(path.join(dir, '.env'), `OPENAI_API_KEY=${SECRET}\n`);
    await writeFile(path.join(dir, 'config.yaml'), `model: m1\napi_key: ${SECRET}\n`);
    await seedStateDb(dir, [], []);
    await mkdir(path.join(dir, 'memories'));
    return dir;
  }

  it.each([
    ['SOUL.md -> config.yaml (it would go unredacted, and be the identity)', 'SOUL.md', 'config.yaml'],
    ['SOUL.md -> .env', 'SOUL.md', '.env'],
    ['SOUL.md -> state.db', 'SOUL.md', 'state.db'],
    ['SOUL.md -> .alf-agent-id', 'SOUL.md', '.alf-agent-id'],
    ['memories/MEMORY.md -> ../.env (it would be the curated records)', 'memories/MEMORY.md', '.env'],
    ['memories/USER.md -> ../config.yaml (it would be the principals)', 'memories/USER.md', 'config.yaml'],
  ])('%s is not carried, not read, and is warned of', async (_name, rel, target) => {
    const dir = await hermesHome();
    await symlink(path.relative(path.dirname(path.join(dir, rel)), path.join(dir, target)), path.join(dir, ...rel.split('/')));
    const result = await hermesAdapter.exportWorkspace({ workspace: dir, persistAgentId: false, clock: fixedClock });
    expect(result.raw.has(rel)).toBe(false);
    expect(uploaded(result)).not.toContain(SECRET);
    expect(linkWarnings(result)).toEqual([refusal(rel, target)]);
    if (rel === 'SOUL.md') expect(result.layers.identity).toBeUndefined();
    // config.yaml itself is still carried, redacted, under its own name.
    expect(Buffer.from(result.raw.get('config.yaml')!).toString()).toContain('model: m1');
  });

  it('SOUL.md -> a prose file inside the home is carried, as before', async () => {
    const dir = await hermesHome();
    await writeFile(path.join(dir, 'soul-draft.md'), '# Soul\nkind\n');
    await symlink('soul-draft.md', path.join(dir, 'SOUL.md'));
    const result = await hermesAdapter.exportWorkspace({ workspace: dir, persistAgentId: false, clock: fixedClock });
    expect(Buffer.from(result.raw.get('SOUL.md')!).toString()).toBe('# Soul\nkind\n');
    expect(result.layers.identity).toBeDefined();
    expect(linkWarnings(result)).toEqual([]);
  });
});

describe('ZeroClaw: a root file that is a link is judged by its target', () => {
  it.each([
    ['SOUL.md -> memory/brain.db', 'SOUL.md', 'memory/brain.db'],
    ['USER.md -> memory/brain.db-wal', 'USER.md', 'memory/brain.db-wal'],
    ['TOOLS.md -> .env', 'TOOLS.md', '.env'],
    ['AGENTS.md -> .alf-synced.json', 'AGENTS.md', '.alf-synced.json'],
  ])('%s is not carried and is warned of', async (_name, rel, target) => {
    const ws = await home();
    await seedBrainDb({ workspace: ws, agents: [{ id: AGENT, alias: 'alpha', created_at: '2026-01-01T00:00:00Z' }], rows: [] });
    await writeFile(path.join(ws, 'memory', 'brain.db-wal'), SECRET);
    await writeFile(path.join(ws, '.env'), `KEY=${SECRET}\n`);
    await writeFile(path.join(ws, '.alf-synced.json'), `{"secret":"${SECRET}"}`);
    await writeFile(path.join(ws, 'IDENTITY.md'), '# Identity\n');
    await symlink(target, path.join(ws, rel));
    const result = await zeroclawAdapter.exportWorkspace({ workspace: ws, runtimeAgent: 'alpha', persistAgentId: false, clock: fixedClock });
    expect([...result.raw.keys()].filter((r) => !r.startsWith('.alf-brain')).sort()).toEqual(['IDENTITY.md']);
    expect(uploaded(result)).not.toContain(SECRET);
    expect(linkWarnings(result)).toEqual([refusal(rel, target)]);
  });
});

describe('OpenClaw: a root file that is a link is judged by its target', () => {
  it.each([
    ['MEMORY.md -> .env', 'MEMORY.md', '.env'],
    ['USER.md -> .alf-agent-id', 'USER.md', '.alf-agent-id'],
    ['SOUL.md -> .alf-synced.json', 'SOUL.md', '.alf-synced.json'],
    ['memory/notes.md -> ../.env.local', 'memory/notes.md', '.env.local'],
  ])('%s is not carried, not read, and is warned of by both exports', async (_name, rel, target) => {
    const ws = await home();
    await writeFile(path.join(ws, '.env'), `KEY=${SECRET}\n`);
    await writeFile(path.join(ws, '.env.local'), `KEY=${SECRET}\n`);
    await writeFile(path.join(ws, '.alf-synced.json'), `{"secret":"${SECRET}"}`);
    await mkdir(path.join(ws, 'memory'));
    await writeFile(path.join(ws, 'memory', '2026-11-01.md'), '## Day\nshipped\n');
    await symlink(path.relative(path.dirname(path.join(ws, rel)), path.join(ws, target)), path.join(ws, ...rel.split('/')));
    const result = await openclawAdapter.exportWorkspace({ workspace: ws, persistAgentId: false, clock: fixedClock });
    expect([...result.raw.keys()].sort()).toEqual(['memory/2026-11-01.md']);
    expect(uploaded(result)).not.toContain(SECRET);
    expect(linkWarnings(result)).toEqual([refusal(rel, target)]);
    const changes = await exportOpenclawChanges({ workspace: ws, persistAgentId: false, clock: fixedClock }, async () => null);
    expect(changes.files.map((file) => file.rel)).toEqual(['memory/2026-11-01.md']);
    expect(linkWarnings(changes)).toEqual([refusal(rel, target)]);
  });

  it('MEMORY.md -> ../secrets.txt, outside the workspace, is not carried; MEMORY.md -> a file inside is', async () => {
    const outside = await mkdtemp(path.join(os.tmpdir(), 'lineage-rootlinks-outside-'));
    const ws = path.join(outside, 'workspace');
    await mkdir(ws);
    await writeFile(path.join(ws, '.alf-agent-id'), AGENT);
    await writeFile(path.join(outside, 'secrets.txt'), `## Keys\n${SECRET}\n`);
    await symlink('../secrets.txt', path.join(ws, 'MEMORY.md'));
    const result = await openclawAdapter.exportWorkspace({ workspace: ws, persistAgentId: false, clock: fixedClock });
    expect([...result.raw.keys()]).toEqual([]);
    expect(uploaded(result)).not.toContain(SECRET);

    await writeFile(path.join(ws, 'notes.md'), '## Owner\nDana\n');
    await symlink('notes.md', path.join(ws, 'USER.md'));
    const inside = await openclawAdapter.exportWorkspace({ workspace: ws, persistAgentId: false, clock: fixedClock });
    expect([...inside.raw.keys()]).toEqual(['USER.md']);
    // USER.md, inside, is no link not followed; MEMORY.md, outside, is said (walk-link-outside.test.ts).
    expect(linkWarnings(inside)).toEqual([expect.stringMatching(new RegExp(`^MEMORY\\.md is a symbolic link to ${await realpath(path.join(outside, 'secrets.txt'))}, outside the workspace: it is not synced`))]);
  });
});
