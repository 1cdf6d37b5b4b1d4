/**
 * `lineage restore` as a user runs it: into a live workspace (the three decisions, --replace, the
 * agent taken from the workspace), for one agent of a shared ZeroClaw brain.db, and against a
 * server with --server/--key (or ALF_API_KEY).
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedBrainDb } from '@/lib/adapters/zeroclaw/test-support';
import { readTree } from '@/lib/sync/testing/workspace';
import { startTestServer, type TestServer } from '../server/harness';
import { runCli } from './run-cli';

let tmp: string;
beforeAll(async () => {
  tmp = await fs.mkdtemp(path.join(os.tmpdir(), 'lineage-restore-cli-'));
});
afterAll(() => fs.rm(tmp, { recursive: true, force: true }));

const SYNCED = '# Memory\n\n## Gateway\nThe gateway is 10.20.0.9.\n';

describe('lineage restore -w: a live workspace', () => {
  it('prints prompt-update and writes nothing over unsynced memory; --replace applies it; then none', async () => {
    const env = { ALF_HOME: path.join(tmp, 'home-live') };
    const data = path.join(tmp, 'data-live');
    const source = path.join(tmp, 'source');
    await fs.mkdir(source, { recursive: true });
    await fs.writeFile(path.join(source, 'MEMORY.md'), SYNCED);
    const synced = await runCli(['sync', '-r', 'openclaw', '-w', source, '--data', data], env);
    const agentId = (synced.json.agent as { alf_agent_id: string }).alf_agent_id;

    // The synced workspace itself, agent taken from its .alf-agent-id: already there.
    const none = await runCli(['restore', '-w', source, '--data', data], env);
    expect(none.code).toBe(0);
    expect(none.json).toMatchObject({ ok: true, action: 'none', applied: false, agent_id: agentId });

    const live = path.join(tmp, 'live');
    await fs.mkdir(live);
    await fs.writeFile(path.join(live, 'MEMORY.md'), '# Mine\n\n## Local only\nNever synced anywhere.\n');
    const before = await readTree(live, []);
    const prompt = await runCli(['restore', '-w', live, '--agent', agentId, '--data', data], env);
    expect(prompt.code).toBe(0);
    expect(prompt.json).toMatchObject({ ok: true, action: 'prompt-update', applied: false, would_change: ['MEMORY.md'] });
    expect(prompt.stderr).toContain('--replace');
    expect(await readTree(live, [])).toEqual(before);

    const replaced = await runCli(['restore', '-w', live, '--agent', agentId, '--data', data, '--replace'], env);
    expect(replaced.json).toMatchObject({ ok: true, action: 'prompt-update', applied: true });
    expect(await fs.readFile(path.join(live, 'MEMORY.md'), 'utf8')).toBe(SYNCED);
    const again = await runCli(['restore', '-w', live, '--agent', agentId, '--data', data], env);
    expect(again.json).toMatchObject({ ok: true, action: 'none', applied: false });
  });

  it('ZeroClaw: --runtime-agent without --agent restores that agent, not the workspace\'s first one', async () => {
    const env = { ALF_HOME: path.join(tmp, 'home-zc') };
    const data = path.join(tmp, 'data-zc');
    const ws = path.join(tmp, 'zc');
    const A = 'aaaaaaaa-0000-4000-8000-00000000000a';
    const B = 'bbbbbbbb-0000-4000-8000-00000000000b';
    const at = '2026-05-01T10:00:00Z';
    await seedBrainDb({
      workspace: ws,
      // scout is the database's first agent (the oldest): it owns the workspace's .alf-agent-id.
      agents: [{ id: A, alias: 'scout', created_at: '2026-04-01T00:00:00Z' }, { id: B, alias: 'ledger-bot', created_at: at }],
      rows: [
        { id: '10000000-0000-4000-8000-000000000001', key: 'gateway', content: 'The gateway is 10.20.0.5', agent_id: A, created_at: at, updated_at: at },
        { id: '20000000-0000-4000-8000-000000000001', key: 'plan', content: 'Ledger-bot reconciles on Mondays', agent_id: B, created_at: at, updated_at: at },
      ],
    });
    const scout = await runCli(['sync', '-r', 'zeroclaw', '-w', ws, '--runtime-agent', 'scout', '--data', data], env);
    const bot = await runCli(['sync', '-r', 'zeroclaw', '-w', ws, '--runtime-agent', 'ledger-bot', '--data', data], env);
    const botId = (bot.json.agent as { alf_agent_id: string }).alf_agent_id;
    expect(botId).not.toBe((scout.json.agent as { alf_agent_id: string }).alf_agent_id);

    const db = new Database(path.join(ws, 'memory', 'brain.db'));
    db.prepare('DELETE FROM memories WHERE agent_id = ?').run(B);
    db.close();
    const restored = await runCli(['restore', '-r', 'zeroclaw', '-w', ws, '--runtime-agent', 'ledger-bot', '--data', data], env);
    expect(restored.json).toMatchObject({ ok: true, agent_id: botId, action: 'initialize', applied: true });
    const check = new Database(path.join(ws, 'memory', 'brain.db'), { readonly: true });
    const rows = check.prepare('SELECT key, content, agent_id FROM memories ORDER BY key').all();
    check.close();
    expect(rows).toEqual([
      { key: 'gateway', content: 'The gateway is 10.20.0.5', agent_id: A },
      { key: 'plan', content: 'Ledger-bot reconciles on Mondays', agent_id: B },
    ]);
  });
});

describe('lineage sync/restore --server URL --key K', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(() => server.close());

  it('syncs and restores over HTTP with --key or ALF_API_KEY; a missing key or a key without a server is a clear error', async () => {
    const env = { ALF_HOME: path.join(tmp, 'home-http') };
    const ws = path.join(tmp, 'http-ws');
    await fs.mkdir(ws, { recursive: true });
    await fs.writeFile(path.join(ws, 'MEMORY.md'), SYNCED);
    const synced = await runCli(['sync', '-w', ws, '--server', server.url, '--key', server.keyA], env);
    expect(synced.json).toMatchObject({ ok: true, sequence: 0 });
    const agentId = (synced.json.agent as { alf_agent_id: string }).alf_agent_id;

    const out = path.join(tmp, 'http-out');
    const restored = await runCli(['restore', '--agent', agentId, '--out', out, '--server', server.url], { ...env, ALF_API_KEY: server.keyA });
    expect(restored.json).toMatchObject({ ok: true, action: 'initialize', applied: true, sequence: 0 });
    expect(await fs.readFile(path.join(out, 'MEMORY.md'), 'utf8')).toBe(SYNCED);

    // Another tenant's key does not see the agent; nothing is written.
    const other = path.join(tmp, 'http-other');
    const foreign = await runCli(['restore', '--agent', agentId, '--out', other, '--server', server.url, '--key', server.keyB], env);
    expect(foreign.code).toBe(1);
    expect(foreign.json.ok).toBe(false);
    await expect(fs.stat(path.join(other, 'MEMORY.md'))).rejects.toThrow();

    const { ALF_API_KEY: _unset, ...noKeyEnv } = process.env;
    const noKey = await runCli(['restore', '--agent', agentId, '--out', other, '--server', server.url], { ...noKeyEnv, ...env, ALF_API_KEY: '' });
    expect(noKey.json).toMatchObject({ ok: false, code: 'auth_failed', hint: expect.stringContaining('--key') });
    const keyAlone = await runCli(['restore', '--agent', agentId, '--out', other, '--key', server.keyA], env);
    expect(keyAlone.json).toMatchObject({ ok: false, code: 'invalid_argument' });

    // Past the latest: said with the CLI's flag and the latest sequence (the API's 404 came back as agent_not_found).
    const past = await runCli(['restore', '--agent', agentId, '--out', other, '--at-sequence', '9', '--server', server.url, '--key', server.keyA], env);
    expect(past.json).toEqual({
      ok: false, code: 'sequence_out_of_range', error: `--at-sequence 9 is past the latest sequence of agent ${agentId}, which is 0`,
      hint: 'pass --at-sequence a sequence from 0 to 0, or leave it out to restore the latest',
    });
    await expect(fs.stat(other)).rejects.toThrow();
  });
});
