/**
 * A key the server refuses (wrong, or revoked since) is said in the words of what the user ran — `lineage sync`,
 * `lineage sync --rebase`, `lineage restore`, `lineage watch` — whichever request met the refusal first (the
 * registration, the restore plan a sync's state is checked against, the base fetch, an upload), never the
 * request's own name (`restore: authentication failed`, `upload delta: …`). With what to do: the key is wrong or
 * revoked, the server's operator and `lineage keys rotate`. Against a real server; the CLI as a user runs it.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { embeddedLedger } from '@/lib/storage/embedded';
import { createApiKey, revokeApiKey } from '@/lib/server/api-keys';
import { httpTarget } from '@/lib/sync/http-target';
import { rebaseWorkspace } from '@/lib/sync/rebase';
import { restoreAgent } from '@/lib/sync/restore';
import { syncWorkspace } from '@/lib/sync/sync';
import { makeSandbox, steppingClock } from '@/lib/sync/testing/workspace';
import { runCli } from '../cli/run-cli';
import { startTestServer, type TestServer } from './harness';

let t: TestServer;
let sb: Awaited<ReturnType<typeof makeSandbox>>;
let agentId: string;
beforeAll(async () => {
  t = await startTestServer();
  sb = await makeSandbox('lineage-refused-key-');
  await sb.write('MEMORY.md', '# M\n\n## Gateway\nThe gateway is 10.20.0.5.\n');
  const first = await syncWorkspace({ runtime: 'openclaw', workspace: sb.workspace, target: httpTarget({ baseUrl: t.url, apiKey: t.keyA }), alfHome: sb.alfHome, clock: steppingClock() });
  agentId = first.agent.alf_agent_id;
});
afterAll(async () => {
  await sb.cleanup();
  await t.close();
});

const WRONG = 'alf_wrong_key_0000000000000000000000000000';

/** What every refused key says: the command, the server, the status and its words; the hint names the way out and the command again. */
function refused(command: string, field: 'message' | 'error' = 'message') {
  return {
    code: 'auth_failed',
    [field]: expect.stringMatching(new RegExp(`^${command.replace(/[-.]/g, '\\$&')}: the server at .+ refused the API key \\(HTTP 401: invalid API key\\)`)),
    hint: expect.stringMatching(new RegExp(`wrong or was revoked.*operator.*lineage keys rotate.*lineage keys hand-over.*\`${command.replace(/[-.]/g, '\\$&')}\` again`)),
  };
}

/** No request's own name (`restore:`, `upload delta:`, `register agent:`) in what the user reads. */
function noRequestName(error: unknown): void {
  const text = `${(error as Error).message} ${(error as { hint?: string }).hint ?? ''}`;
  expect(text).not.toMatch(/(?<!lineage )\b(restore|upload delta|upload snapshot|register agent|get agent|download):/);
  expect(text).not.toMatch(/authentication failed/);
}

async function failure(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(() => { throw new Error('expected a refusal'); }, (error: unknown) => error);
}

describe('a refused key names what the user ran', () => {
  it('a sync whose first request is the registration (no state here) says lineage sync', async () => {
    const target = httpTarget({ baseUrl: t.url, apiKey: WRONG, command: 'lineage sync' });
    const error = await failure(syncWorkspace({ runtime: 'openclaw', workspace: sb.workspace, target, alfHome: path.join(sb.root, 'fresh-home'), clock: steppingClock() }));
    expect(error).toMatchObject(refused('lineage sync'));
    noRequestName(error);
  });

  it('a sync whose first request is the restore plan its state is checked against says lineage sync, not restore', async () => {
    await sb.write('MEMORY.md', '# M\n\n## Gateway\nThe gateway is 10.20.0.6.\n');
    const target = httpTarget({ baseUrl: t.url, apiKey: WRONG, command: 'lineage sync' });
    const error = await failure(syncWorkspace({ runtime: 'openclaw', workspace: sb.workspace, target, alfHome: sb.alfHome, clock: steppingClock() }));
    expect(error).toMatchObject(refused('lineage sync'));
    noRequestName(error);
  });

  it('each request a sync, a rebase, a restore or a watch can make first: the GET of the agent, the restore plan, the uploads', async () => {
    for (const command of ['lineage sync', 'lineage sync --rebase', 'lineage restore', 'lineage watch']) {
      const target = httpTarget({ baseUrl: t.url, apiKey: WRONG, command });
      for (const call of [
        () => target.ensureAgent({ id: agentId, name: 'M', runtime: 'openclaw' }),
        () => target.latestEntry(agentId),
        () => target.fetchRestore(agentId),
        () => target.pushDelta(agentId, 0, new Uint8Array([1, 2, 3])),
        () => target.putSnapshot(agentId, new Uint8Array([1, 2, 3])),
      ]) {
        const error = await failure(call());
        expect(error).toMatchObject(refused(command));
        noRequestName(error);
      }
    }
  });

  it('a rebase and a restore with a wrong key write nothing and say their own command', async () => {
    const before = await fs.readdir(sb.alfHome, { recursive: true });
    const rebase = await failure(rebaseWorkspace({ runtime: 'openclaw', workspace: sb.workspace, target: httpTarget({ baseUrl: t.url, apiKey: WRONG, command: 'lineage sync --rebase' }), alfHome: sb.alfHome, clock: steppingClock() }));
    expect(rebase).toMatchObject(refused('lineage sync --rebase'));
    const out = path.join(sb.root, 'restored');
    const restore = await failure(restoreAgent({ runtime: 'openclaw', target: httpTarget({ baseUrl: t.url, apiKey: WRONG, command: 'lineage restore' }), agentId, out, replace: false, alfHome: sb.alfHome, clock: steppingClock() }));
    expect(restore).toMatchObject(refused('lineage restore'));
    expect((restore as Error).message).toContain('nothing was stored on the server, nor written here');
    expect(await fs.readdir(sb.alfHome, { recursive: true })).toEqual(before);
    await expect(fs.stat(out)).rejects.toThrow();
  });

  it('the CLI: a sync and a restore with a revoked key, and a sync with a wrong one, print their own command', async () => {
    const db = embeddedLedger(t.server.service.storage).db;
    const issued = createApiKey({ db, name: 'soon-revoked', now: new Date() });
    const env = { ALF_HOME: path.join(sb.root, 'cli-home') };
    const ws = path.join(sb.root, 'cli-ws');
    await fs.mkdir(ws, { recursive: true });
    await fs.writeFile(path.join(ws, 'MEMORY.md'), '# M\n\n## Port\nThe port is 8080.\n');
    const synced = await runCli(['sync', '-w', ws, '--server', t.url, '--key', issued.key], env);
    expect(synced.json).toMatchObject({ ok: true, sequence: 0 });
    const id = (synced.json.agent as { alf_agent_id: string }).alf_agent_id;
    expect(revokeApiKey({ db, id: issued.id })).toBe(true);
    await fs.writeFile(path.join(ws, 'MEMORY.md'), '# M\n\n## Port\nThe port is 8081.\n');

    const sync = await runCli(['sync', '-w', ws, '--server', t.url, '--key', issued.key], env);
    expect(sync.code).toBe(1);
    expect(sync.json).toMatchObject({ ok: false, ...refused('lineage sync', 'error') });
    expect(sync.json.error).toContain(`the server at ${t.url} refused the API key`);
    expect(sync.stderr).not.toMatch(/restore:|upload delta:/);
    const wrong = await runCli(['sync', '-w', ws, '--server', t.url, '--key', WRONG], env);
    expect(wrong.json).toMatchObject({ ok: false, ...refused('lineage sync', 'error') });
    const restore = await runCli(['restore', '--agent', id, '--out', path.join(sb.root, 'cli-out'), '--server', t.url, '--key', issued.key], env);
    expect(restore.json).toMatchObject({ ok: false, ...refused('lineage restore', 'error') });
  });

  it('a lineage sync a running lineage watch runs for it says lineage sync, not lineage watch', async () => {
    const db = embeddedLedger(t.server.service.storage).db;
    const issued = createApiKey({ db, name: 'watched', now: new Date() });
    const env = { ALF_HOME: path.join(sb.root, 'watch-home') };
    const ws = path.join(sb.root, 'watch-ws');
    await fs.mkdir(ws, { recursive: true });
    await fs.writeFile(path.join(ws, 'MEMORY.md'), '# M\n\n## Port\nThe port is 8080.\n');
    const target = ['-w', ws, '--server', t.url, '--key', issued.key];
    const watch = spawn(process.execPath, [path.resolve(__dirname, '../../bin/lineage.cjs'), 'watch', '--on-demand', ...target], { env: { ...process.env, ...env } });
    let watchErr = '';
    const ready = new Promise<void>((resolve, reject) => {
      watch.stderr.on('data', (d: Buffer) => {
        watchErr += d.toString();
        if (watchErr.includes('serving lineage sync on')) resolve();
      });
      watch.on('close', () => reject(new Error(`the watch ended:\n${watchErr}`)));
    });
    try {
      await ready;
      const synced = await runCli(['sync', ...target], env);
      expect(synced.json).toMatchObject({ ok: true, sequence: 0 });
      expect(revokeApiKey({ db, id: issued.id })).toBe(true);
      await fs.writeFile(path.join(ws, 'MEMORY.md'), '# M\n\n## Port\nThe port is 8081.\n');
      const sync = await runCli(['sync', ...target], env);
      // Both ran in the watch.
      expect(watchErr.split('ran a lineage sync for another process').length - 1).toBe(2);
      expect(sync.code).toBe(1);
      expect(sync.json).toMatchObject({ ok: false, ...refused('lineage sync', 'error') });
      expect(`${sync.stderr} ${String(sync.json.hint)}`).not.toContain('lineage watch');
    } finally {
      watch.kill('SIGTERM');
    }
  }, 120_000);
});
