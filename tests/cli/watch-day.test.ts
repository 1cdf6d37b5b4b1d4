/**
 * `lineage watch` left running beside an agent, syncing to a served instance with a key: what a
 * working day does to it (a key revoked, the workspace removed and made again), with real
 * processes, a real HTTP server and real files. Each case checks what the watch says and what
 * the server then holds.
 */
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { embeddedLedger } from '@/lib/storage/embedded';
import { insertSeedRow, seedBrainDb } from '@/lib/adapters/zeroclaw/test-support';
import { createApiKey } from '@/lib/server/api-keys';
import { withAgentLock } from '@/lib/sync/agent-lock';
import { makeSandbox, readTree } from '@/lib/sync/testing/workspace';
import { startTestServer, type TestServer } from '../server/harness';
import { runCli } from './run-cli';
import { startWatch } from './watch-process';

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
/** Whether `wait` resolved within `ms` (a watch that never does is a failure to report, not a hang). */
const within = (ms: number, wait: Promise<void>) => Promise.race([wait.then(() => true), pause(ms).then(() => false)]);
const AGENT = '0a000000-0000-4000-8000-00000000000a';
const row = (n: number, content: string) => ({
  id: `10000000-0000-4000-8000-${String(n).padStart(12, '0')}`, key: `fact-${n}`, content, agent_id: AGENT,
  created_at: '2026-05-01T10:00:00Z', updated_at: '2026-05-01T10:00:00Z',
});

let server: TestServer | null = null;
let sandbox: Awaited<ReturnType<typeof makeSandbox>> | null = null;
afterEach(async () => {
  await server?.close();
  await sandbox?.cleanup();
  server = null;
  sandbox = null;
});

describe('lineage watch through a working day', () => {
  it('a ZeroClaw agent whose key is revoked: each change is tried once or twice and said refused, not synced again and again for the sync\'s own reads of the database', async () => {
    server = await startTestServer();
    sandbox = await makeSandbox('lineage-watch-day-');
    const sb = sandbox;
    // ZeroClaw's database in WAL mode, as ZeroClaw keeps it: each read of it touches its -wal and -shm.
    const file = await seedBrainDb({ workspace: sb.workspace, agents: [{ id: AGENT, alias: 'scout', created_at: '2026-05-01T00:00:00Z' }], rows: [row(1, 'The gateway is 10.20.0.5')] });
    const setup = new Database(file);
    setup.pragma('journal_mode = WAL');
    setup.close();
    const issued = createApiKey({ db: embeddedLedger(server.server.service.storage).db, name: 'laptop', now: new Date() });
    const env = { ALF_HOME: sb.alfHome };
    const watch = startWatch(['-r', 'zeroclaw', '--runtime-agent', 'scout', '-w', sb.workspace, '--server', server.url, '--key', issued.key, '--quiet', '100', '--interval', '0'], env);
    await watch.until((w) => w.outputs().length >= 1, 'its first sync');
    expect(watch.outputs()[0]).toMatchObject({ ok: true, sequence: 0, delta: false });
    // Its own reads after an upload: at most one more sync, idle.
    await pause(1500);
    for (const output of watch.outputs().slice(1)) expect(output).toMatchObject({ ok: true, sequence: 0, no_changes: true });
    const before = watch.outputs().length;
    expect(before).toBeLessThanOrEqual(2);

    expect((await runCli(['keys', 'revoke', issued.id, '--data', server.dataDir], env)).json).toMatchObject({ ok: true, revoked: issued.id });
    const db = new Database(file);
    try {
      insertSeedRow(db, row(2, 'The printer is on floor 3'));
    } finally {
      db.close();
    }
    await watch.until((w) => w.outputs().length > before, 'a sync of the write');
    // The sync of the change, and at most one more for the files that changed while it ran (its own
    // reads of the database); then nothing until the next change. Each is said refused.
    await pause(3000);
    const refused = watch.outputs().slice(before);
    expect(refused.length).toBeGreaterThanOrEqual(1);
    expect(refused.length).toBeLessThanOrEqual(2);
    for (const output of refused) expect(output).toMatchObject({ ok: false, code: 'auth_failed' });
    expect(watch.stderr()).toContain('refused the API key (HTTP 401');
    // The hint is a command's ("then run `lineage watch` again with --key NEWKEY"): the watch says it
    // goes on refused until it is stopped, and that a second watch with the new key is refused while it runs.
    expect(watch.stderr()).toContain(`every sync of this watch is refused with this key: stop it (Ctrl-C, or kill ${watch.child.pid}) and start it again with --key NEWKEY`);
    expect(watch.stderr()).toContain('while this one runs, a watch of this workspace with another key is refused (`watch_running`)');
    // And it is: a watch with a new key, started beside it, refuses to start and names it.
    const renewed = createApiKey({ db: embeddedLedger(server.server.service.storage).db, name: 'laptop-2', now: new Date() });
    const second = startWatch(['-r', 'zeroclaw', '--runtime-agent', 'scout', '-w', sb.workspace, '--server', server.url, '--key', renewed.key, '--quiet', '100', '--interval', '0'], env);
    await second.until((w) => w.outputs().length === 1, 'its answer');
    expect(second.outputs()[0]).toMatchObject({ ok: false, code: 'watch_running', error: expect.stringContaining(`another lineage watch (pid ${watch.child.pid}) already syncs`) });
    expect((await second.exited).code).toBe(1);

  }, 120_000);
  it('the workspace removed and made again (a restore from a copy, a checkout): said gone, then watched again, and its next change synced at once — with --interval 0', async () => {
    server = await startTestServer();
    sandbox = await makeSandbox('lineage-watch-day-');
    const sb = sandbox;
    const env = { ALF_HOME: sb.alfHome };
    await sb.write('MEMORY.md', '# M\n\n## Gateway\nThe gateway is 10.20.0.5.\n');
    await sb.write('memory/2026-11-01.md', '# 2026-11-01\n\n## Standup\nShipped the importer.\n');
    const watch = startWatch(['-w', sb.workspace, '--server', server.url, '--key', server.keyA, '--quiet', '100', '--interval', '0'], env);
    await watch.until((w) => w.outputs().length >= 1, 'its first sync');
    expect(watch.outputs()[0]).toMatchObject({ ok: true, sequence: 0, delta: false });
    await pause(1000);
    const synced = watch.outputs().length;

    const copy = path.join(sb.root, 'copy');
    fs.cpSync(sb.workspace, copy, { recursive: true });
    fs.rmSync(sb.workspace, { recursive: true });
    expect(await within(10_000, watch.until((w) => w.stderr().includes(`${sb.workspace} is gone`), 'it said the workspace was gone')), 'the watch said the workspace was gone').toBe(true);
    fs.cpSync(copy, sb.workspace, { recursive: true });
    expect(await within(10_000, watch.until((w) => w.stderr().includes(`${sb.workspace} is there again`), 'it said the workspace was back')), 'the watch said the workspace was there again').toBe(true);
    await pause(1000);
    // The agent writes into the workspace made again: the watch sees it (no --interval to fall back on).
    await sb.write('memory/2026-11-02.md', '# 2026-11-02\n\n## Standup\nReviewed the queue.\n');
    expect(await within(15_000, watch.until((w) => w.outputs().some((o) => o.sequence === 1), 'a sync of the change')), 'the watch synced the change made in the workspace made again').toBe(true);
    const outputs = watch.outputs().slice(synced);
    expect(outputs.filter((o) => o.ok !== true || o.no_changes !== true).at(-1)).toMatchObject({ ok: true, sequence: 1, delta: true, changes: { creates: 1, updates: 0, deletes: 0 } });
    for (const output of outputs) expect(output).toMatchObject({ ok: true });

    // The server's head is the workspace, byte for byte.
    const agentId = fs.readFileSync(path.join(sb.workspace, '.alf-agent-id'), 'utf8').trim();
    const out = path.join(sb.root, 'restored');
    expect((await runCli(['restore', '--agent', agentId, '--out', out, '--server', server.url, '--key', server.keyA], env)).json).toMatchObject({ ok: true, sequence: 1 });
    expect(await readTree(out)).toEqual(await readTree(sb.workspace));
  }, 120_000);
  it('a file the agent writes while a sync fails (a revoked key) always makes another sync — only a database\'s -wal and -shm are its own reads', async () => {
    server = await startTestServer();
    sandbox = await makeSandbox('lineage-watch-day-');
    const sb = sandbox;
    const env = { ALF_HOME: sb.alfHome };
    await sb.write('MEMORY.md', '# M\n\n## Gateway\nThe gateway is 10.20.0.5.\n');
    const issued = createApiKey({ db: embeddedLedger(server.server.service.storage).db, name: 'laptop', now: new Date() });
    const watch = startWatch(['-w', sb.workspace, '--server', server.url, '--key', issued.key, '--quiet', '2000', '--interval', '0'], env);
    await watch.until((w) => w.outputs().length === 1, 'its first sync');
    expect(watch.outputs()[0]).toMatchObject({ ok: true, sequence: 0 });
    expect((await runCli(['keys', 'revoke', issued.id, '--data', server.dataDir], env)).json).toMatchObject({ ok: true });
    const agentId = fs.readFileSync(path.join(sb.workspace, '.alf-agent-id'), 'utf8').trim();
    const waited = (n: number) => watch.until((w) => w.stderr().split('waiting for another lineage process').length - 1 === n, `sync ${n} waited for the agent's lock`);
    /** Holds the agent's lock (as another lineage process would) until the watch's sync waits for it, writes `rel`, then lets the sync go on. */
    const writeDuringSync = (n: number, rel: string) => withAgentLock({ alfHome: path.join(sb.alfHome, '.alf'), key: agentId, what: `agent ${agentId}` }, async () => {
      if (n === 1) await sb.write('memory/2026-11-01.md', '# 2026-11-01\n\n## Standup\nShipped the importer.\n');
      await waited(n);
      await sb.write(rel, `# ${rel}\n\n## Note\nwritten while sync ${n} ran\n`);
      await pause(500);
    });
    // Sync 1 (of the first write) runs while the agent writes another file, and is refused.
    await writeDuringSync(1, 'memory/2026-11-02.md');
    await watch.until((w) => w.outputs().length === 2, 'sync 1 was refused');
    // Sync 2 (of that file) runs while the agent writes a third, and is refused too.
    await writeDuringSync(2, 'memory/2026-11-03.md');
    await watch.until((w) => w.outputs().length === 3, 'sync 2 was refused');
    // The third file makes a sync 3 (with --interval 0 nothing else would).
    expect(await within(15_000, watch.until((w) => w.outputs().length === 4, 'sync 3')), 'a sync after the file written while sync 2 failed').toBe(true);
    for (const output of watch.outputs().slice(1)) expect(output).toMatchObject({ ok: false, code: 'auth_failed' });
  }, 120_000);
});
