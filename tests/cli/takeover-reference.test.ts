/**
 * A user of the reference `alf` CLI switching to `lineage sync`, and back. The reference's client
 * state is built as CONTRACT §2.4 says it leaves it — `$ALF_HOME/.alf/config.toml`, the state TOML
 * `{agent}.toml` and its base `{agent}-snapshot.alf`, which is the adapter's export of the workspace
 * (no `sync` in its manifest) with its records reconciled against the previous base (§5) — and its
 * uploads are made with the reference's request sequences (tests/interop/reference-client.ts)
 * against a real `lineage serve`. Then the real bin syncs with `--server` and `--key`, and
 * `lineage state export` hands the workspace back: its base passes the reference reader's rules
 * and the schemas, and the reference's next sync, made by the contract code paths (reconcile,
 * compute_delta), finds nothing to send and lands on the right sequence.
 */
import { randomUUID } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { getAdapter } from '@/lib/adapters';
import { seedStateDb, writeFiles } from '@/lib/adapters/hermes/test-support';
import { seedBrainDb } from '@/lib/adapters/zeroclaw/test-support';
import type { Runtime } from '@/lib/adapters/types';
import { readDelta, readSnapshot, writeDelta, writeSnapshot } from '@/lib/core/archive';
import { computeDelta } from '@/lib/core/delta';
import { reconcile } from '@/lib/core/reconcile';
import { validateArchive } from '@/lib/core/validate';
import { snapshotFromExport } from '@/lib/sync/snapshot';
import type { ChildServer } from '../server/harness';
import { referenceServer } from '../interop/reference-server';
import type { ReferenceClient } from '../interop/reference-client';
import { runCli } from './run-cli';

const ALF = path.resolve(process.cwd(), '../shared/alf');
let tmp: string;
let dataDir: string;
let key: string;
let server: ChildServer;
let client: ReferenceClient;

referenceServer('lineage-takeover-', (s) => ({ tmp, dataDir, key, server, client } = s));

/**
 * A workspace the reference CLI has synced: its first sync (register, snapshot at 0) made, its
 * state written as it writes it — the base `.alf` first, then the TOML (§2.4), with the config
 * pointing at this server. `refSync` is the reference's delta sync: export, reconcile against the
 * base, compute_delta, push on the TOML's sequence with `base_timestamp` = its `last_synced_at`
 * (§3.2), then persist the reconciled export as the new base.
 */
async function referenceUser(name: string, runtime: Runtime, seed: (ws: string) => Promise<void>, runtimeAgent?: string) {
  const ws = path.join(tmp, name, 'ws');
  const home = path.join(tmp, name, 'home');
  const stateDir = path.join(home, '.alf', 'state');
  await fs.mkdir(ws, { recursive: true });
  await seed(ws);
  const exportNow = (now: Date) => getAdapter(runtime).exportWorkspace({ workspace: ws, persistAgentId: true, clock: () => now, ...(runtimeAgent ? { runtimeAgent } : {}) });
  const now = new Date();
  const first = await exportNow(now);
  const agentId = first.agentId;
  const firstBytes = await writeSnapshot(snapshotFromExport(first, now, first.records));
  expect((await client.register({ id: agentId, name: first.agentName, source_runtime: runtime })).created.status).toBe(201);
  expect((await client.uploadSnapshot(agentId, firstBytes)).final.json).toMatchObject({ sequence: 0 });
  await fs.mkdir(stateDir, { recursive: true });
  await fs.writeFile(path.join(home, '.alf', 'config.toml'), `[service]\napi_url = "${server.url}"\napi_key = "${key}"\n`);
  const paths = { toml: path.join(stateDir, `${agentId}.toml`), alf: path.join(stateDir, `${agentId}-snapshot.alf`) };
  const writeState = async (sequence: number, base: Uint8Array, syncedAt = new Date().toISOString()) => {
    await fs.writeFile(paths.alf, base);
    await fs.writeFile(paths.toml, `agent_id = "${agentId}"\nlast_synced_sequence = ${sequence}\nlast_synced_at = "${syncedAt}"\n`);
  };
  await writeState(0, firstBytes);
  /** The TOML as the reference reads it: the sequence and the time it sends as `base_timestamp`. */
  const readState = async () => {
    const text = await fs.readFile(paths.toml, 'utf8');
    return { sequence: Number(/^last_synced_sequence = (\d+)$/m.exec(text)?.[1]), syncedAt: /^last_synced_at = "([^"]+)"$/m.exec(text)?.[1] };
  };
  const refSync = async () => {
    const { sequence, syncedAt } = await readState();
    const base = await readSnapshot(new Uint8Array(await fs.readFile(paths.alf)));
    const at = new Date();
    const fresh = await exportNow(at);
    const records = reconcile({ agentId, prev: base.records, curr: fresh.records }).records;
    const entries = computeDelta(base.records, records);
    const newBase = await writeSnapshot(snapshotFromExport(fresh, at, records));
    if (entries.length === 0) return { entries, sequence };
    const delta = await writeDelta({
      manifest: {
        alf_version: '1.0.0', created_at: at.toISOString(), agent: { id: agentId, source_runtime: runtime },
        sync: { base_sequence: sequence, new_sequence: 0, ...(syncedAt ? { base_timestamp: syncedAt } : {}) }, changes: {},
      },
      entries, layers: {}, rawChanged: new Map(), rawDeleted: [],
    });
    const pushed = await client.pushDelta(agentId, sequence, delta);
    expect(pushed.final.status, JSON.stringify(pushed.final.json)).toBe(201);
    await writeState(pushed.final.json.sequence as number, newBase);
    return { entries, sequence: pushed.final.json.sequence as number };
  };
  const agentFlags = runtimeAgent ? ['--runtime-agent', runtimeAgent] : [];
  const sync = () => runCli(['sync', '-r', runtime, '-w', ws, ...agentFlags, '--server', server.url, '--key', key], { ALF_HOME: home });
  const stateExport = () => runCli(['state', 'export', '-r', runtime, '-w', ws, ...agentFlags], { ALF_HOME: home });
  const show = () => runCli(['state', 'show', '-r', runtime, '-w', ws, ...agentFlags], { ALF_HOME: home });
  const latest = async () => (await client.getAgent(agentId)).json.latest_sequence as number;
  return { ws, home, stateDir, agentId, paths, writeState, readState, refSync, sync, stateExport, show, latest };
}

/** The reference standard OpenClaw fixture, under an agent id of its own (one server holds every test's agents). */
const standard = async (ws: string) => {
  await fs.cp(path.join(ALF, 'fixtures/openclaw/standard'), ws, { recursive: true });
  await fs.chmod(ws, 0o755);
  await fs.writeFile(path.join(ws, '.alf-agent-id'), randomUUID());
};

async function schemaValidator() {
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats(ajv);
  const load = async (name: string) => JSON.parse(await fs.readFile(path.join(ALF, 'schemas', name), 'utf8')) as Record<string, unknown>;
  const record = await load('memory-record.schema.json');
  // CONTRACT §4.1 [DISCREPANCY]: the schema asks for UUIDv7 ids, every adapter mints v5 or native ids.
  (record.properties as Record<string, Record<string, unknown>>).id!.pattern = '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$';
  return { record: ajv.compile(record), manifest: ajv.compile(await load('manifest.schema.json')) };
}

/** The keys of the reference's `alf sync` JSON (CONTRACT §2.3); `changes` only on a delta. */
function expectReferenceSyncJson(json: Record<string, unknown>, agentId: string) {
  expect(json).toMatchObject({
    ok: true, sequence: expect.any(Number), delta: expect.any(Boolean), snapshot_path: expect.any(String),
    no_changes: expect.any(Boolean), recovered: false,
    agent: { runtime_agent: expect.any(String), alf_agent_id: agentId, source: expect.any(String) },
  });
  if (json.delta) expect(json.changes).toMatchObject({ creates: expect.any(Number), updates: expect.any(Number), deletes: expect.any(Number) });
  else expect(json).not.toHaveProperty('changes');
}

describe('from the reference CLI to lineage sync, and back', () => {
  it('OpenClaw: the first lineage sync of a reference state is idle, ids stay, a change is a delta; state export hands back a base the reference reads and builds on', async () => {
    const u = await referenceUser('openclaw', 'openclaw', standard);
    // A session the reference synced: Fact 2's body edited (reconcile keeps its id, §5 P2).
    const memory = path.join(u.ws, 'MEMORY.md');
    await fs.writeFile(memory, (await fs.readFile(memory, 'utf8')).replace('## Fact 2\n', '## Fact 2\nEdited on the reference side.\n'));
    const edited = await u.refSync();
    expect(edited.entries.map((e) => e.operation)).toEqual(['update']);
    expect(edited.sequence).toBe(1);
    const refIds = (await readSnapshot(new Uint8Array(await fs.readFile(u.paths.alf)))).records.map((r) => r.id).sort();

    // Switch: nothing changed, so nothing is uploaded (no full re-upload), at the reference's sequence.
    const idle = await u.sync();
    expect(idle.code).toBe(0);
    expectReferenceSyncJson(idle.json, u.agentId);
    expect(idle.json).toMatchObject({ sequence: 1, delta: false, no_changes: true, snapshot_path: u.paths.alf });
    expect(await u.latest()).toBe(1);

    // A change is a delta on sequence 1 with only that change; the reference's ids are kept.
    await fs.appendFile(path.join(u.ws, 'memory/2026-01-16.md'), '\n## Evening\nWrapped up the release.\n');
    const delta = await u.sync();
    expectReferenceSyncJson(delta.json, u.agentId);
    expect(delta.json).toMatchObject({ sequence: 2, delta: true, no_changes: false, changes: { creates: 1, updates: 0, deletes: 0 } });
    const head = await client.restore(u.agentId);
    expect(head.deltas.map((d) => d.sequence)).toEqual([1, 2]);
    const lastDelta = await readDelta(head.deltas[1]!.bytes);
    expect(lastDelta.entries.map((e) => e.operation)).toEqual(['create']);
    expect(refIds).not.toContain(lastDelta.entries[0]!.record.id);

    // Back: `state export` writes the base at sequence 2 — valid by the reference reader's rules
    // (the CLI's and the schemas), and the reference's next sync finds nothing to send.
    const exported = await u.stateExport();
    expect(exported.json).toMatchObject({ ok: true, agent_id: u.agentId, sequence: 2, snapshot_path: u.paths.alf });
    expect(await u.readState()).toMatchObject({ sequence: 2, syncedAt: expect.any(String) });
    expect((await u.show()).json).toMatchObject({ ok: true, last_synced_sequence: 2, layout: 'store' });
    const base = new Uint8Array(await fs.readFile(u.paths.alf));
    expect(await validateArchive(base)).toMatchObject({ errors: [], warnings: [] });
    expect((await runCli(['validate', u.paths.alf])).json).toEqual({ ok: true, valid: true, errors: [], warnings: [] });
    const snapshot = await readSnapshot(base);
    const schemas = await schemaValidator();
    expect(schemas.manifest(snapshot.manifest), JSON.stringify(schemas.manifest.errors)).toBe(true);
    for (const record of snapshot.records) expect(schemas.record(record), JSON.stringify(schemas.record.errors)).toBe(true);
    expect(snapshot.records.map((r) => r.id).sort()).toEqual([...refIds, lastDelta.entries[0]!.record.id].sort());
    const fresh = await getAdapter('openclaw').exportWorkspace({ workspace: u.ws, persistAgentId: false, clock: () => new Date() });
    expect([...snapshot.raw.keys()].sort()).toEqual([...fresh.raw.keys()].map((rel) => `raw/openclaw/${rel}`).sort());
    expect((await u.refSync()).entries).toEqual([]);

    // The reference's next sync of a change lands on sequence 3 (its base_timestamp taken).
    await fs.appendFile(memory, '\n## Fact 9\nAdded on the reference side again.\n');
    const refNext = await u.refSync();
    expect(refNext.entries.map((e) => e.operation)).toEqual(['create']);
    expect(refNext.sequence).toBe(3);

    // `state show` says which base the next sync takes: the reference's `.alf` at 3, not lineage's store at 2.
    expect((await u.show()).json).toMatchObject({ ok: true, last_synced_sequence: 3, layout: 'alf' });
    // And to lineage again: idle at 3 (the reference's base, not the store's 2), then a delta on it.
    expect((await u.sync()).json).toMatchObject({ ok: true, sequence: 3, no_changes: true });
    await fs.appendFile(path.join(u.ws, 'memory/2026-01-15.md'), '\n## Late\nA late note.\n');
    expect((await u.sync()).json).toMatchObject({ ok: true, sequence: 4, changes: { creates: 1, updates: 0, deletes: 0 } });
  }, 180_000);

  it('a reference state a sequence behind the server (another machine synced) or ahead of it (the server restored from a backup): refused in words, nothing uploaded', async () => {
    const behind = await referenceUser('behind', 'openclaw', standard);
    const stale = { alf: await fs.readFile(behind.paths.alf), toml: await fs.readFile(behind.paths.toml) };
    await fs.appendFile(path.join(behind.ws, 'MEMORY.md'), '\n## Fact 5\nFrom the other machine.\n');
    expect((await behind.refSync()).sequence).toBe(1);
    // This machine's state is the one from before that sync, at 0.
    await fs.writeFile(behind.paths.alf, stale.alf);
    await fs.writeFile(behind.paths.toml, stale.toml);
    const refused = await behind.sync();
    expect(refused.code).toBe(1);
    expect(refused.json).toMatchObject({ ok: false, code: 'sync_upload_failed', error: expect.stringContaining('is at sequence 0, but'), hint: expect.stringContaining('lineage sync --rebase') });
    expect(await behind.latest()).toBe(1);
    expect(await behind.readState()).toMatchObject({ sequence: 0 });

    const ahead = await referenceUser('ahead', 'openclaw', standard);
    await ahead.writeState(3, new Uint8Array(await fs.readFile(ahead.paths.alf)));
    await fs.appendFile(path.join(ahead.ws, 'MEMORY.md'), '\n## Fact 6\nAfter the backup.\n');
    const aheadRun = await ahead.sync();
    expect(aheadRun.code).toBe(1);
    expect(aheadRun.json).toMatchObject({ ok: false, code: 'sync_upload_failed', error: expect.stringContaining('is at sequence 3, but'), hint: expect.stringContaining('lineage sync --rebase') });
    expect(await ahead.latest()).toBe(0);
    expect(await ahead.readState()).toMatchObject({ sequence: 3 });
  }, 120_000);

  it('a state the reference wrote after lineage\'s store (its first sync after `alf purge`) is the base: not taken for a sync of ours killed before its TOML', async () => {
    const u = await referenceUser('purged', 'openclaw', standard);
    // lineage takes over and syncs twice: its store is at 2; then it hands back.
    await fs.appendFile(path.join(u.ws, 'MEMORY.md'), '\n## Fact 7\nSeven.\n');
    expect((await u.sync()).json).toMatchObject({ ok: true, sequence: 1 });
    await fs.appendFile(path.join(u.ws, 'MEMORY.md'), '\n## Fact 8\nEight.\n');
    expect((await u.sync()).json).toMatchObject({ ok: true, sequence: 2 });
    expect((await u.stateExport()).json).toMatchObject({ ok: true, sequence: 2 });
    // The reference: `alf purge` (DELETE; its TOML and base removed — it knows no store files), then a first sync.
    expect((await client.deleteAgent(u.agentId)).json).toMatchObject({ deleted: true });
    await fs.rm(u.paths.toml);
    await fs.rm(u.paths.alf);
    const now = new Date();
    const fresh = await getAdapter('openclaw').exportWorkspace({ workspace: u.ws, persistAgentId: false, clock: () => now });
    const bytes = await writeSnapshot(snapshotFromExport(fresh, now, fresh.records));
    expect((await client.register({ id: u.agentId, name: fresh.agentName, source_runtime: 'openclaw' })).created.status).toBe(201);
    expect((await client.uploadSnapshot(u.agentId, bytes)).final.json).toMatchObject({ sequence: 0 });
    await u.writeState(0, bytes);

    expect((await u.show()).json).toMatchObject({ ok: true, last_synced_sequence: 0, layout: 'alf' });
    // lineage again: the reference's base at 0 is kept, and the workspace is what it holds.
    const idle = await u.sync();
    expect(idle.json).toMatchObject({ ok: true, sequence: 0, no_changes: true });
    expect(idle.stderr).not.toContain('killed sync');
    expect(Buffer.from(await fs.readFile(u.paths.alf)).equals(Buffer.from(bytes))).toBe(true);
    expect(await u.readState()).toMatchObject({ sequence: 0 });
    await fs.appendFile(path.join(u.ws, 'MEMORY.md'), '\n## Fact 10\nTen.\n');
    expect((await u.sync()).json).toMatchObject({ ok: true, sequence: 1, changes: { creates: 1, updates: 0, deletes: 0 } });
    expect(await u.latest()).toBe(1);
  }, 120_000);

  it('the state TOML of every reference generation: ≤0.2.0 (snapshot_path, no last_synced_at), a nanosecond last_synced_at, and none synced (E3: registration_failed, nothing uploaded)', async () => {
    const old = await referenceUser('old-toml', 'openclaw', standard);
    await fs.writeFile(old.paths.toml, `agent_id = "${old.agentId}"\nlast_synced_sequence = 0\nsnapshot_path = "${old.paths.alf}"\n`);
    expect((await old.sync()).json).toMatchObject({ ok: true, sequence: 0, no_changes: true });
    await fs.appendFile(path.join(old.ws, 'MEMORY.md'), '\n## Fact 11\nEleven.\n');
    expect((await old.sync()).json).toMatchObject({ ok: true, sequence: 1, changes: { creates: 1, updates: 0, deletes: 0 } });

    const nanos = await referenceUser('nanos-toml', 'openclaw', standard);
    await fs.writeFile(nanos.paths.toml, `agent_id = "${nanos.agentId}"\nlast_synced_sequence = 0\nlast_synced_at = "${new Date().toISOString().slice(0, -1)}017780Z"\n`);
    await fs.appendFile(path.join(nanos.ws, 'MEMORY.md'), '\n## Fact 11\nEleven.\n');
    expect((await nanos.sync()).json).toMatchObject({ ok: true, sequence: 1, changes: { creates: 1, updates: 0, deletes: 0 } });

    const never = await referenceUser('never-synced', 'openclaw', standard);
    await fs.writeFile(never.paths.toml, `agent_id = "${never.agentId}"\n`);
    const refused = await never.sync();
    expect(refused.code).toBe(1);
    expect(refused.json).toMatchObject({ ok: false, code: 'registration_failed', hint: expect.stringContaining('--force-first-sync') });
    expect(await never.latest()).toBe(0);
  }, 120_000);

  const others: [Runtime, (ws: string) => Promise<void>, string | undefined, (ws: string) => Promise<void>][] = [
    ['zeroclaw', async (ws) => {
      const agent = randomUUID();
      await seedBrainDb({ workspace: ws, agents: [{ id: agent, alias: 'scout', created_at: '2026-05-01T00:00:00Z' }], rows: [
        { id: randomUUID(), key: 'gateway', content: 'The gateway is 10.20.0.5', agent_id: agent, created_at: '2026-05-01T10:00:00Z', updated_at: '2026-05-01T10:00:00Z' },
        { id: randomUUID(), key: 'editor', content: 'Prefers vim', agent_id: agent, created_at: '2026-05-02T10:00:00Z', updated_at: '2026-05-02T10:00:00Z' },
      ] });
      await fs.writeFile(path.join(ws, 'SOUL.md'), '# Soul\nCalm.\n');
    }, 'scout', async (ws) => {
      const db = new Database(path.join(ws, 'memory', 'brain.db'));
      db.prepare("UPDATE memories SET content = 'Prefers helix', updated_at = '2026-05-09T10:00:00Z' WHERE key = 'editor'").run();
      db.close();
    }],
    ['hermes', async (ws) => {
      await seedStateDb(ws, [{ id: 'sess-closed', source: 'cli', title: 'Deploy review', started_at: 1780000000, ended_at: 1780000600 }],
        [{ session_id: 'sess-closed', role: 'user', content: 'Review the deploy', timestamp: 1780000010 }]);
      await writeFiles(ws, { 'memories/MEMORY.md': 'Always run tests first.\n§\nThe gateway is 10.20.0.5.\n', 'memories/USER.md': 'Name: Dana\n', 'SOUL.md': 'Calm.\n' });
    }, undefined, async (ws) => {
      await fs.appendFile(path.join(ws, 'memories/MEMORY.md'), '§\nA new note.\n');
    }],
  ];
  for (const [runtime, seed, runtimeAgent, change] of others) {
    it(`${runtime}: idle from the reference state, a change is a delta, and state export hands back the base the reference builds on`, async () => {
      const u = await referenceUser(runtime, runtime, seed, runtimeAgent);
      const idle = await u.sync();
      expectReferenceSyncJson(idle.json, u.agentId);
      expect(idle.json).toMatchObject({ sequence: 0, no_changes: true });
      expect(await u.latest()).toBe(0);
      await change(u.ws);
      const delta = await u.sync();
      expectReferenceSyncJson(delta.json, u.agentId);
      expect(delta.json).toMatchObject({ sequence: 1, delta: true });
      expect((await u.stateExport()).json).toMatchObject({ ok: true, sequence: 1, snapshot_path: u.paths.alf });
      expect((await validateArchive(new Uint8Array(await fs.readFile(u.paths.alf)))).errors).toEqual([]);
      expect((await u.refSync()).entries).toEqual([]);
    }, 120_000);
  }
});
