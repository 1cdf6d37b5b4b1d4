/**
 * A team admin's week with `lineage keys`: a person leaves (their key revoked, their agents handed
 * to another key), a key leaks (rotated: the machine re-configured with the new key continues the
 * same agent with a delta), which key owns which agents. Real CLI processes, a real HTTP server,
 * real workspaces of two runtimes.
 */
import { randomUUID } from 'node:crypto';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { insertSeedRow, seedBrainDb } from '@/lib/adapters/zeroclaw/test-support';
import { makeSandbox } from '@/lib/sync/testing/workspace';
import { call, startTestServer, stateFingerprint, type TestServer } from '../server/harness';
import { runCli } from './run-cli';

const SCOUT = '0a000000-0000-4000-8000-0000000000a1';
const row = (n: number, content: string) => ({
  id: `20000000-0000-4000-8000-${String(n).padStart(12, '0')}`, key: `fact-${n}`, content, agent_id: SCOUT,
  created_at: '2026-05-01T10:00:00Z', updated_at: '2026-05-01T10:00:00Z',
});

let server: TestServer | null = null;
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  await server?.close();
  server = null;
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

async function sandbox() {
  const sb = await makeSandbox('lineage-admin-');
  cleanups.push(sb.cleanup);
  return sb;
}

const keys = async (args: string[]) => runCli(['keys', ...args, '--data', server!.dataDir]);
async function issue(name: string): Promise<{ id: string; key: string }> {
  const made = await keys(['create', '--name', name]);
  expect(made.json).toMatchObject({ ok: true, name });
  return made.json as unknown as { id: string; key: string };
}

describe('an admin and the keys of a team', () => {
  it('a person leaves: the key revoked keeps its agents, named in keys list; handed to another key, whose next sync continues the agent with a delta', async () => {
    server = await startTestServer();
    const alice = await issue('alice');
    const dana = await issue('dana');
    const sb = await sandbox();
    const sync = (key: string) => runCli(['sync', '-r', 'openclaw', '-w', sb.workspace, '--server', server!.url, '--key', key], { ALF_HOME: sb.alfHome });
    await sb.write('MEMORY.md', '# Alice\n\n## Prefs\nLikes tea.\n');
    const first = await sync(alice.key);
    expect(first.json).toMatchObject({ ok: true, sequence: 0, delta: false });
    const agentId = (first.json.agent as { alf_agent_id: string }).alf_agent_id;

    const listed = await keys(['list']);
    expect(listed.json.keys).toEqual(expect.arrayContaining([
      expect.objectContaining({ id: alice.id, name: 'alice', agents: [{ id: agentId, name: expect.any(String), source_runtime: 'openclaw', latest_sequence: 0 }] }),
      expect.objectContaining({ id: dana.id, agents: [] }),
    ]));
    expect(listed.json.agents_of_revoked_keys).toEqual([]);

    const revoked = await keys(['revoke', alice.id]);
    expect(revoked.json).toEqual({ ok: true, revoked: alice.id, agents: [agentId], agents_to: null });
    expect(revoked.stderr).toContain(`lineage keys hand-over ${alice.id} KEY_ID`);
    // Alice's machine: refused, and (as it says) nothing written there.
    await sb.write('MEMORY.md', '# Alice\n\n## Prefs\nLikes tea.\n\n## New\nLikes coffee too.\n');
    expect((await sync(alice.key)).json).toMatchObject({ ok: false, code: 'auth_failed' });
    // No key reaches the agent now; keys list says whose it was.
    expect((await call(`${server.url}/agents/${agentId}`, { key: dana.key })).status).toBe(404);
    expect((await keys(['list'])).json.agents_of_revoked_keys).toEqual([{ key_id: alice.id, agents: [expect.objectContaining({ id: agentId, latest_sequence: 0 })] }]);

    const handed = await keys(['hand-over', alice.id, dana.id]);
    expect(handed.json).toEqual({ ok: true, from: alice.id, to: dana.id, agents: [agentId] });
    expect((await call(`${server.url}/agents/${agentId}`, { key: dana.key })).status).toBe(200);
    const after = await keys(['list']);
    expect(after.json.agents_of_revoked_keys).toEqual([]);
    expect(after.json.keys).toEqual(expect.arrayContaining([expect.objectContaining({ id: dana.id, agents: [expect.objectContaining({ id: agentId })] })]));

    // The machine re-configured with the key that holds the agent: a delta onto sequence 0, not a new snapshot.
    const next = await sync(dana.key);
    expect(next.json, next.stdout + next.stderr).toMatchObject({ ok: true, sequence: 1, delta: true });
  });

  it('a leaked key rotated: the old key refused at once, the new key (same name) owns the agent, and the machine re-configured continues it with a delta', async () => {
    server = await startTestServer();
    const bob = await issue('bob');
    const sb = await sandbox();
    const file = await seedBrainDb({ workspace: sb.workspace, agents: [{ id: SCOUT, alias: 'scout', created_at: '2026-05-01T00:00:00Z' }], rows: [row(1, 'The gateway is 10.20.0.5')] });
    const sync = (key: string) => runCli(['sync', '-r', 'zeroclaw', '--runtime-agent', 'scout', '-w', sb.workspace, '--server', server!.url, '--key', key], { ALF_HOME: sb.alfHome });
    const first = await sync(bob.key);
    expect(first.json).toMatchObject({ ok: true, sequence: 0 });
    const agentId = (first.json.agent as { alf_agent_id: string }).alf_agent_id;

    const rotated = await keys(['rotate', bob.id]);
    expect(rotated.json).toMatchObject({ ok: true, name: 'bob', admin: false, replaces: bob.id, agents: [agentId] });
    const fresh = rotated.json as unknown as { id: string; key: string };
    expect(fresh.id).not.toBe(bob.id);
    expect(fresh.key).toMatch(/^alf_sk_/);
    expect((await call(`${server.url}/agents`, { key: bob.key })).status).toBe(401);

    const db = new Database(file);
    try {
      insertSeedRow(db, row(2, 'The printer is on floor 3'));
    } finally {
      db.close();
    }
    // The machine still holding the leaked key (a watch, a cron job) tries first, and is refused.
    const refused = await sync(bob.key);
    expect(refused.json).toMatchObject({ ok: false, code: 'auth_failed' });
    expect(refused.json.error).toContain('nothing was stored on the server, nor written here');
    const next = await sync(fresh.key);
    expect(next.json, next.stdout + next.stderr).toMatchObject({ ok: true, sequence: 1, delta: true, changes: { creates: 1, updates: 0, deletes: 0 } });
  });

  it('an agent deleted by a person who left: its id, handed over with the key, may be registered again by the new key', async () => {
    server = await startTestServer();
    const alice = await issue('alice');
    const dana = await issue('dana');
    const id = randomUUID();
    const register = (key: string) => call(`${server!.url}/agents`, { method: 'POST', key, contentType: 'application/json', body: JSON.stringify({ id, name: 'notes', source_runtime: 'openclaw' }) });
    expect((await register(alice.key)).status).toBe(201);
    expect((await call(`${server.url}/agents/${id}`, { method: 'DELETE', key: alice.key })).status).toBe(200);
    expect((await register(dana.key)).status).toBe(409);
    const revoked = await keys(['revoke', alice.id, '--agents-to', dana.id]);
    expect(revoked.json).toEqual({ ok: true, revoked: alice.id, agents: [], agents_to: dana.id });
    expect((await register(dana.key)).status).toBe(201);
    // Dana may delete what she was given, too.
    expect((await call(`${server.url}/agents/${id}`, { method: 'DELETE', key: dana.key })).status).toBe(200);
  });

  it('a revoke, rotate or hand-over that cannot be done says why and what to run, and changes nothing', async () => {
    server = await startTestServer();
    const alice = await issue('alice');
    const dana = await issue('dana');
    await call(`${server.url}/agents`, { method: 'POST', key: alice.key, contentType: 'application/json', body: JSON.stringify({ id: randomUUID(), name: 'a', source_runtime: 'openclaw' }) });
    const before = stateFingerprint(server.dataDir);
    const listed = (await keys(['list'])).json;
    const gone = randomUUID();
    const cases: [string[], string, string, string][] = [
      [['revoke', alice.id, '--agents-to', gone], 'key_not_found', `no API key with id ${gone} to hand the agents to`, 'lineage keys list'],
      [['revoke', alice.id, '--agents-to', alice.id], 'invalid_argument', '--agents-to names the key being revoked', 'lineage keys list'],
      [['revoke', gone, '--agents-to', dana.id], 'key_not_found', `no API key with id ${gone}`, 'lineage keys list'],
      [['rotate', gone], 'key_not_found', `no API key with id ${gone}`, 'lineage keys list'],
      [['hand-over', alice.id, gone], 'key_not_found', `no API key with id ${gone} to hand the agents to`, 'lineage keys create'],
      [['hand-over', alice.id, alice.id], 'invalid_argument', 'to itself', 'lineage keys list'],
      [['hand-over', gone, dana.id], 'agents_not_found', `no agent belongs to ${gone}`, 'lineage keys list'],
      [['hand-over', ' ', dana.id], 'invalid_argument', 'empty', 'lineage keys list'],
    ];
    for (const [args, code, error, hint] of cases) {
      const run = await keys(args);
      expect(run.code, args.join(' ')).toBe(1);
      expect(run.json, args.join(' ')).toMatchObject({ ok: false, code, error: expect.stringContaining(error), hint: expect.stringContaining(hint) });
    }
    expect(stateFingerprint(server.dataDir)).toEqual(before);
    expect((await keys(['list'])).json).toEqual(listed);
    expect((await call(`${server.url}/agents`, { key: alice.key })).status).toBe(200);
  });
});

