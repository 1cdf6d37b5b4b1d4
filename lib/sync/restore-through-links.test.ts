/**
 * A restore into a live workspace never replaces, through a symbolic link, a file its runtime never
 * carries under another name — a `.env`, a control file, Hermes' `config.yaml`/`auth.json`/`state.db`,
 * ZeroClaw's `config.toml`/`.secret_key`/`brain.db` — the same rule a sync judges a link's target
 * by. `SOUL.md -> config.yaml` would have the archive's SOUL.md overwrite the configuration (an archive
 * made before the sync judged links, a reference client's, a hostile one): the restore is refused
 * before anything is written (`workspace_file_invalid`, the link named), the link and the file it
 * leads to as they were, the database untouched. A link to any other file inside is still written
 * through, as before. Real syncs, real restores, each runtime.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { seedStateDb, writeFiles } from '@/lib/adapters/hermes/test-support';
import { AdapterError } from '@/lib/adapters/shared/errors';
import { seedBrainDb } from '@/lib/adapters/zeroclaw/test-support';
import type { Runtime } from '@/lib/adapters/types';
import { localTarget } from './local-target';
import { restoreAgent } from './restore';
import { syncWorkspace } from './sync';
import { treeAndBytes } from './testing/file-tree';
import { makeSandbox, steppingClock } from './testing/workspace';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const fn of cleanups.splice(0)) await fn();
});

const SECRET = 'sk-secret-7373';
const AGENT = 'aaaaaaaa-0000-4000-8000-00000000000a';

/**
 * `files` synced as `runtime` from a sandbox workspace, and a fresh live directory `live` that
 * `prepare` fills (the secrets and the links); `restore` puts the agent into `live`, replacing.
 */
async function syncedThenLive(runtime: Runtime, files: Record<string, string>, prepare: (live: string) => void) {
  const sb = await makeSandbox('lineage-restore-links-');
  cleanups.push(sb.cleanup);
  const clock = steppingClock();
  const target = localTarget(sb.dataDir, clock);
  if (runtime === 'hermes') await seedStateDb(sb.workspace, [{ id: 'sess-1', source: 'cli', title: 'Deploy review', started_at: 1780000000 }], [{ session_id: 'sess-1', role: 'user', content: 'Review the deploy', timestamp: 1780000010 }]);
  if (runtime === 'zeroclaw') {
    await seedBrainDb({ workspace: sb.workspace, rel: 'data/memory/brain.db', agents: [{ id: AGENT, alias: 'scout', created_at: '2026-05-01T00:00:00Z' }], rows: [
      { id: '10000000-0000-4000-8000-000000000001', key: 'gateway', content: 'The gateway is 10.20.0.5', agent_id: AGENT, created_at: '2026-05-01T10:00:00Z', updated_at: '2026-05-01T10:00:00Z' },
    ] });
  }
  await writeFiles(sb.workspace, files);
  const runtimeAgent = runtime === 'zeroclaw' ? 'scout' : undefined;
  const { agent } = await syncWorkspace({ runtime, workspace: sb.workspace, runtimeAgent, target, alfHome: sb.alfHome, clock });
  const live = path.join(sb.root, 'live');
  fs.mkdirSync(live);
  prepare(live);
  const restore = (replace = true) => restoreAgent({ runtime, agentId: agent.alf_agent_id, target, alfHome: sb.alfHome, workspace: live, runtimeAgent, clock, replace });
  return { live, restore };
}

async function refused(live: string, restore: () => Promise<unknown>, rel: string, lands: string, link: string): Promise<void> {
  const before = treeAndBytes(live);
  const error = await restore().then(() => null, (e: unknown) => e);
  expect(error).toBeInstanceOf(AdapterError);
  expect(error).toMatchObject({
    code: 'workspace_file_invalid',
    message: `cannot restore into ${live}: ${rel} leads to ${lands} through the symbolic link ${link}, and a restore never writes a file a sync never carries under another name (a secret, a database or a control file)`,
    hint: `replace the link ${path.join(live, ...link.split('/'))} with a file or directory of its own, or remove it, then restore again; or restore into a new directory with --out (nothing was written)`,
  });
  expect(treeAndBytes(live)).toEqual(before);
}

const link = (live: string, rel: string, to: string) => {
  fs.mkdirSync(path.dirname(path.join(live, rel)), { recursive: true });
  fs.symlinkSync(to, path.join(live, ...rel.split('/')));
};

describe('OpenClaw', () => {
  const files = { 'MEMORY.md': '## Owner\nDana owns billing.\n', 'memory/notes.md': '## Build\nmake all\n', 'SOUL.md': 'Calm.\n' };

  it.each([
    ['MEMORY.md -> .env', 'MEMORY.md', '.env', '.env'],
    ['memory/notes.md -> ../.env.local', 'memory/notes.md', '../.env.local', '.env.local'],
    ['SOUL.md -> .alf-include.json (a control file)', 'SOUL.md', '.alf-include.json', '.alf-include.json'],
  ])('%s: refused, nothing written', async (_name, rel, to, lands) => {
    const { live, restore } = await syncedThenLive('openclaw', files, (live) => {
      fs.writeFileSync(path.join(live, '.env'), `KEY=${SECRET}\n`);
      fs.writeFileSync(path.join(live, '.env.local'), `KEY=${SECRET}\n`);
      fs.writeFileSync(path.join(live, '.alf-include.json'), '[]\n');
      link(live, rel, to);
    });
    await refused(live, restore, rel, lands, rel);
    expect(fs.readFileSync(path.join(live, lands), 'utf8')).not.toContain('##');
  });

  it('without --replace the prompt-update report is refused the same way (it would name a change the restore cannot make)', async () => {
    const { live, restore } = await syncedThenLive('openclaw', files, (live) => {
      fs.writeFileSync(path.join(live, '.env'), `KEY=${SECRET}\n`);
      link(live, 'MEMORY.md', '.env');
    });
    await refused(live, () => restore(false), 'MEMORY.md', '.env', 'MEMORY.md');
  });

  it('a link to a plain file inside is written through, as before', async () => {
    const { live, restore } = await syncedThenLive('openclaw', files, (live) => {
      fs.writeFileSync(path.join(live, 'soul-kept.md'), 'old\n');
      link(live, 'SOUL.md', 'soul-kept.md');
    });
    expect(await restore()).toMatchObject({ applied: true });
    expect(fs.readFileSync(path.join(live, 'soul-kept.md'), 'utf8')).toBe('Calm.\n');
    expect(fs.lstatSync(path.join(live, 'SOUL.md')).isSymbolicLink()).toBe(true);
  });
});

describe('Hermes', () => {
  const files = { 'SOUL.md': 'You are calm.\n', 'memories/MEMORY.md': 'Always run tests first.\n', 'memories/USER.md': 'Name: Dana\n', 'memories/auth.json': '{"note":"the user\'s own file"}\n' };
  const secrets = (live: string) => {
    fs.writeFileSync(path.join(live, 'config.yaml'), `model: m1\napi_key: ${SECRET}\n`);
    fs.writeFileSync(path.join(live, '.env'), `OPENAI_API_KEY=${SECRET}\n`);
    fs.writeFileSync(path.join(live, 'auth.json'), `{"providers":{"nous":{"access_token":"${SECRET}"}}}\n`);
  };

  it.each([
    ['SOUL.md -> config.yaml', 'SOUL.md', 'config.yaml', 'config.yaml', 'SOUL.md'],
    ['memories/MEMORY.md -> ../.env', 'memories/MEMORY.md', '../.env', '.env', 'memories/MEMORY.md'],
    ['memories/USER.md -> ../auth.json', 'memories/USER.md', '../auth.json', 'auth.json', 'memories/USER.md'],
    ['memories -> . (memories/auth.json lands on the auth store)', 'memories', '.', 'auth.json', 'memories'],
  ])('%s: refused, nothing written, no state.db made', async (_name, at, to, lands, linkName) => {
    const { live, restore } = await syncedThenLive('hermes', files, (live) => {
      secrets(live);
      link(live, at, to);
    });
    const rel = at === 'memories' ? 'memories/auth.json' : at;
    await refused(live, restore, rel, lands, linkName);
    expect(fs.readFileSync(path.join(live, lands), 'utf8')).toContain(SECRET);
    expect(fs.existsSync(path.join(live, 'state.db'))).toBe(false);
  });
});

describe('ZeroClaw', () => {
  const files = { 'SOUL.md': 'Steady.\n', 'memory/notes.md': '## Notes\nplain\n' };
  const secrets = (live: string) => {
    fs.writeFileSync(path.join(live, 'config.toml'), `api_key = "${SECRET}"\n`);
    fs.writeFileSync(path.join(live, '.secret_key'), `${SECRET}\n`);
  };

  it.each([
    ['SOUL.md -> config.toml', 'SOUL.md', 'config.toml', 'config.toml'],
    ['memory/notes.md -> ../.secret_key', 'memory/notes.md', '../.secret_key', '.secret_key'],
    ['SOUL.md -> .env', 'SOUL.md', '.env', '.env'],
  ])('%s: refused, nothing written, no brain.db made', async (_name, rel, to, lands) => {
    const { live, restore } = await syncedThenLive('zeroclaw', files, (live) => {
      secrets(live);
      fs.writeFileSync(path.join(live, '.env'), `KEY=${SECRET}\n`);
      link(live, rel, to);
    });
    await refused(live, restore, rel, lands, rel);
    expect(fs.readFileSync(path.join(live, lands), 'utf8')).toContain(SECRET);
    expect(fs.existsSync(path.join(live, 'data'))).toBe(false);
  });

  it('a live brain.db with SOUL.md -> memory/brain.db: refused before the database changes', async () => {
    const { live, restore } = await syncedThenLive('zeroclaw', files, (live) => {
      fs.mkdirSync(path.join(live, 'memory'));
      fs.copyFileSync(path.join(path.dirname(live), 'ws', 'data', 'memory', 'brain.db'), path.join(live, 'memory', 'brain.db'));
      link(live, 'SOUL.md', 'memory/brain.db');
    });
    await refused(live, restore, 'SOUL.md', 'memory/brain.db', 'SOUL.md');
  });
});
