/**
 * A reference `alf` CLI user's first `lineage sync` that names no target (lib/cli/reference-config.ts).
 * Their `$ALF_HOME/.alf/config.toml` names the service (`[service] api_url`, `api_key`) and their
 * state `{agent}.toml` + `{agent}-snapshot.alf` is the reference's (no lineage target mark), made
 * here as the reference makes it against a real `lineage serve`. Without `--server`/`--data` the real
 * bin used to sync into `./data` as a first sync and rewrite their TOML to follow it; it refuses
 * now, writing nothing, and its hint's `--server` command takes the state over where it is. A
 * target named in any way (`--data`, `LINEAGE_DATA`) is never refused, nor is a machine with no
 * reference config.
 */
import { randomUUID } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { getAdapter } from '@/lib/adapters';
import { seedStateDb, writeFiles } from '@/lib/adapters/hermes/test-support';
import type { Runtime } from '@/lib/adapters/types';
import { seedBrainDb } from '@/lib/adapters/zeroclaw/test-support';
import { writeSnapshot } from '@/lib/core/archive';
import { snapshotFromExport } from '@/lib/sync/snapshot';
import type { ChildServer } from '../server/harness';
import { referenceServer } from '../interop/reference-server';
import type { ReferenceClient } from '../interop/reference-client';
import { runCli } from './run-cli';

const ALF = path.resolve(process.cwd(), '../shared/alf');
let tmp: string;
let key: string;
let server: ChildServer;
let client: ReferenceClient;

referenceServer('lineage-refcfg-', (s) => ({ tmp, key, server, client } = s));

/** No target from the test's own environment: only what a case names. */
const NO_TARGET_ENV = { LINEAGE_DATA: '', LINEAGE_DATABASE_URL: '', LINEAGE_BLOB_URL: '', ALF_API_URL: '', ALF_API_KEY: '', LINEAGE_RESIDENT: '0' };

/** The reference standard OpenClaw fixture, under an agent id of its own. */
async function standard(ws: string) {
  await fs.cp(path.join(ALF, 'fixtures/openclaw/standard'), ws, { recursive: true });
  await fs.chmod(ws, 0o755);
  await fs.writeFile(path.join(ws, '.alf-agent-id'), randomUUID());
}

/**
 * A workspace the reference CLI synced once (registered, snapshot at 0) with `config` as its
 * config.toml (none: null), its state written as the reference writes it; `cwd` is where the user
 * runs `lineage`, whose `./data` is the default target. OpenClaw's standard fixture unless `runtime` is given.
 */
async function referenceUser(name: string, config: string | null, runtime: Runtime = 'openclaw', seed: (ws: string) => Promise<void> = standard, runtimeAgent?: string) {
  const root = path.join(tmp, name);
  const ws = path.join(root, 'ws');
  const home = path.join(root, 'home');
  const cwd = path.join(root, 'cwd');
  const stateDir = path.join(home, '.alf', 'state');
  await fs.mkdir(ws, { recursive: true });
  await seed(ws);
  await fs.mkdir(cwd, { recursive: true });
  const now = new Date();
  const first = await getAdapter(runtime).exportWorkspace({ workspace: ws, persistAgentId: true, clock: () => now, ...(runtimeAgent ? { runtimeAgent } : {}) });
  const agentId = first.agentId;
  const bytes = await writeSnapshot(snapshotFromExport(first, now, first.records));
  expect((await client.register({ id: agentId, name: first.agentName, source_runtime: runtime })).created.status).toBe(201);
  expect((await client.uploadSnapshot(agentId, bytes)).final.json).toMatchObject({ sequence: 0 });
  await fs.mkdir(stateDir, { recursive: true });
  if (config !== null) await fs.writeFile(path.join(home, '.alf', 'config.toml'), config);
  await fs.writeFile(path.join(stateDir, `${agentId}-snapshot.alf`), bytes);
  await fs.writeFile(path.join(stateDir, `${agentId}.toml`), `agent_id = "${agentId}"\nlast_synced_sequence = 0\nlast_synced_at = "${now.toISOString()}"\n`);
  const sync = (extra: string[] = [], env: Record<string, string> = {}) =>
    runCli(['sync', '-r', runtime, '-w', ws, ...(runtimeAgent ? ['--runtime-agent', runtimeAgent] : []), ...extra], { ...NO_TARGET_ENV, ALF_HOME: home, ...env }, cwd);
  return { root, ws, home, cwd, stateDir, agentId, sync };
}

/** Every file under `dir` with its bytes (directories as such): what "nothing written" compares. */
async function tree(dir: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const entry of await fs.readdir(dir, { recursive: true, withFileTypes: true })) {
    const abs = path.join(entry.parentPath, entry.name);
    out[path.relative(dir, abs)] = entry.isDirectory() ? '<dir>' : (await fs.readFile(abs)).toString('base64');
  }
  return out;
}

const serviceConfig = () => `[service]\napi_url = "${server.url}/v1/"\napi_key = "${key}"\n`;

describe('a reference CLI user runs `lineage sync` naming no target', () => {
  it('is refused before anything is written, the hint naming the config\'s service; its --server command takes the state over where it is', async () => {
    const u = await referenceUser('refused', serviceConfig());
    const before = await tree(u.root);

    for (const extra of [[], ['--rebase']]) {
      const refused = await u.sync(extra);
      expect(refused.code, refused.stderr).not.toBe(0);
      expect(refused.json).toMatchObject({ ok: false, code: 'target_changed' });
      expect(refused.json.error).toContain(path.join(u.cwd, 'data'));
      expect(refused.json.error).toContain(`${server.url}/v1`);
      const command = `lineage sync${extra.length ? ' --rebase' : ''} -r openclaw -w ${u.ws}`;
      expect(refused.json.hint).toContain(`\`${command} --server ${server.url}/v1 --key KEY\``);
      expect(refused.json.hint).toContain(`service.api_key in ${path.join(u.home, '.alf', 'config.toml')}`);
      expect(refused.json.hint).toContain(`\`${command} --data DIR\``);
      expect(refused.json.hint).not.toContain(key);
      // Nothing written: no ./data, the reference's TOML and .alf, the workspace, no lock or mark.
      expect(await tree(u.root)).toEqual(before);
    }
    expect((await client.getAgent(u.agentId)).json.latest_sequence).toBe(0);

    // The hint's command, with the key: the reference's state is taken as it is (idle at 0).
    const refused = await u.sync();
    const hinted = /`(lineage sync -r [^`]* --server [^`]*)`/.exec(String(refused.json.hint))![1]!;
    const taken = await runCli(hinted.replace('KEY', key).split(' ').slice(1), { ...NO_TARGET_ENV, ALF_HOME: u.home }, u.cwd);
    expect(taken.json, taken.stderr).toMatchObject({ ok: true, sequence: 0, no_changes: true, agent: { alf_agent_id: u.agentId } });
    await expect(fs.stat(path.join(u.cwd, 'data'))).rejects.toMatchObject({ code: 'ENOENT' });
    expect(await fs.readFile(path.join(u.stateDir, `${u.agentId}.target`), 'utf8')).toContain(`${server.url}/v1 key-sha256:`);
    // Once lineage has marked the state as the server's, a sync naming no target is not this refusal.
    expect((await u.sync()).json.error ?? '').not.toContain('names no target');
  }, 120_000);

  it('`lineage watch` naming no target is refused the same way, before its first sync: nothing written', async () => {
    const u = await referenceUser('watch', serviceConfig());
    const before = await tree(u.root);
    const refused = await runCli(['watch', '-r', 'openclaw', '-w', u.ws], { ...NO_TARGET_ENV, ALF_HOME: u.home }, u.cwd);
    expect(refused.code, refused.stderr).not.toBe(0);
    expect(refused.json).toMatchObject({ ok: false, code: 'target_changed', error: expect.stringMatching(/^this watch names no target/) });
    expect(refused.json.hint).toContain(`\`lineage watch -r openclaw -w ${u.ws} --server ${server.url}/v1 --key KEY\``);
    expect(await tree(u.root)).toEqual(before);
  }, 60_000);

  it('a config naming only service.api_key (alf login) is refused too, naming the service the reference would use', async () => {
    const u = await referenceUser('key-only', `[service]\napi_key = "${key}"\n`);
    const before = await tree(u.root);
    const refused = await u.sync();
    expect(refused.json).toMatchObject({ ok: false, code: 'target_changed' });
    expect(refused.json.hint).toContain(`--server https://api.agent-life.ai --key KEY`);
    const withEnv = await u.sync([], { ALF_API_URL: server.url });
    expect(withEnv.json.hint).toContain(`--server ${server.url} --key KEY`);
    expect(await tree(u.root)).toEqual(before);
  }, 60_000);

  it('ZeroClaw (an alias of a shared brain.db) and Hermes: refused the same way, the hint keeping --runtime-agent', async () => {
    const zeroclaw = async (ws: string) => {
      const agent = randomUUID();
      await seedBrainDb({ workspace: ws, agents: [{ id: agent, alias: 'scout', created_at: '2026-05-01T00:00:00Z' }], rows: [
        { id: randomUUID(), key: 'gateway', content: 'The gateway is 10.20.0.5', agent_id: agent, created_at: '2026-05-01T10:00:00Z', updated_at: '2026-05-01T10:00:00Z' },
      ] });
    };
    const hermes = async (ws: string) => {
      await seedStateDb(ws, [{ id: 'sess-closed', source: 'cli', title: 'Deploy review', started_at: 1780000000, ended_at: 1780000600 }],
        [{ session_id: 'sess-closed', role: 'user', content: 'Review the deploy', timestamp: 1780000010 }]);
      await writeFiles(ws, { 'memories/MEMORY.md': 'Always run tests first.\n', 'SOUL.md': 'Calm.\n' });
    };
    for (const [runtime, seed, alias] of [['zeroclaw', zeroclaw, 'scout'], ['hermes', hermes, undefined]] as const) {
      const u = await referenceUser(runtime, serviceConfig(), runtime, seed, alias);
      const before = await tree(u.root);
      const refused = await u.sync();
      expect(refused.json, refused.stderr).toMatchObject({ ok: false, code: 'target_changed' });
      expect(refused.json.error).toContain(u.agentId);
      expect(refused.json.hint).toContain(`\`lineage sync -r ${runtime} -w ${u.ws}${alias ? ` --runtime-agent ${alias}` : ''} --server ${server.url}/v1 --key KEY\``);
      expect(await tree(u.root)).toEqual(before);
    }
  }, 120_000);

  it('a target named by --data or LINEAGE_DATA is never refused: a first sync there, as before', async () => {
    const flagged = await referenceUser('flag', serviceConfig());
    const byFlag = await flagged.sync(['--data', path.join(flagged.root, 'mine')]);
    expect(byFlag.json, byFlag.stderr).toMatchObject({ ok: true, sequence: 0, delta: false, no_changes: false });

    const byEnv = await referenceUser('env', serviceConfig());
    const viaEnv = await byEnv.sync([], { LINEAGE_DATA: path.join(byEnv.root, 'mine') });
    expect(viaEnv.json, viaEnv.stderr).toMatchObject({ ok: true, sequence: 0, delta: false, no_changes: false });
    expect((await fs.readdir(path.join(byEnv.root, 'mine'))).length).toBeGreaterThan(0);
  }, 120_000);

  it('no reference config (or one naming no service): the default ./data, as before', async () => {
    for (const [name, config] of [['no-config', null], ['no-service', '[defaults]\nruntime = "openclaw"\n']] as const) {
      const u = await referenceUser(name, config);
      const synced = await u.sync();
      expect(synced.json, synced.stderr).toMatchObject({ ok: true, sequence: 0, delta: false, no_changes: false });
      await expect(fs.stat(path.join(u.cwd, 'data'))).resolves.toBeTruthy();
    }
  }, 120_000);
});
