/**
 * What a sync, a rebase or a restore over HTTP tells its user for each status a lineage server (or a proxy
 * before it) answers: the code by what was asked, the server's words, and a hint that says what happened
 * to what was sent and what to do. A 507 (the server's disk full) had the server's words and no hint.
 * The table over statuses, then a real server's 413.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomBytes, randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { AlfApiClient, AlfApiError } from '@/lib/client/alf-api';
import { snapshotBytes } from '@/tests/server/archives';
import { SERVICE_ERROR_STATUS } from '@/lib/server/errors';
import { startTestServer, type TestServer } from '@/tests/server/harness';
import { httpTarget, serverRefusal, type FailedCode } from './http-target';
import { syncWorkspace } from './sync';
import { readSent } from './synced-marker';
import { makeSandbox, steppingClock } from './testing/workspace';

const asked = { command: 'lineage sync', server: 'http://lineage.example:8080' };

/** status → what its hint must say (for an upload: a sync's) and the code it comes with. */
const TABLE: [status: number, hint: RegExp, code?: string][] = [
  [401, /wrong or was revoked.*operator.*lineage keys rotate.*lineage keys hand-over.*`lineage sync` again/, 'auth_failed'],
  [403, /run `lineage sync` again: the server signs a new link/],
  [405, /does not take this request as an ALF service.*nothing was stored on the server.*check --server/],
  [408, /did not reach the server whole in time.*nothing was stored on the server.*`lineage sync` again/],
  [409, /conflicts with this request.*replaced nothing.*operator.*lineage doctor/],
  [413, /larger than the server takes.*LINEAGE_MAX_UPLOAD_BYTES.*nothing was stored on the server.*state is as it was.*raise the limit/],
  [415, /does not take this request as an ALF service/],
  [421, /does not answer to the host name in --server http:\/\/lineage\.example:8080.*--allowed-hosts or LINEAGE_ALLOWED_HOSTS/],
  [429, /refuses requests this often.*`lineage sync` again later/],
  [431, /headers are larger than the server reads/],
  [500, /failed on its own.*nothing was stored on the server.*tell the server's operator/],
  [502, /proxy before the server could not get an answer/],
  [503, /cannot take this now.*read-only.*nothing was stored on the server.*make its storage writable/],
  [504, /gave up on this request as too slow.*LINEAGE_DATABASE_READ_SECONDS/],
  [507, /the server's disk is full: nothing was stored on the server \(this machine's state is as it was: the next sync uploads the same changes\); ask the server's operator to free space.*then run `lineage sync` again/],
];

describe('a server\'s refusal, by status: a hint for each', () => {
  it.each(TABLE)('HTTP %i to an upload', (status, hint, code) => {
    const error = serverRefusal(asked, 'sync_upload_failed', new AlfApiError('upload delta', status, `the server's words for ${status}`));
    expect(error).toMatchObject({ code: code ?? 'sync_upload_failed', hint: expect.stringMatching(hint) });
    expect(error.message).toContain(`the server's words for ${status}`);
  });

  it('every status a lineage server answers with an error of its own has a hint, for a sync, a registration and a restore', () => {
    // 400 (the request refused: the caller's own hints) and 404 (agent_not_found: the restore command says where to look) aside.
    const statuses = new Set([...Object.values(SERVICE_ERROR_STATUS), 421, 431, 500, 503, 504, 507].filter((s) => s !== 400 && s !== 404));
    for (const failed of ['sync_upload_failed', 'registration_failed', 'restore_incomplete'] as FailedCode[]) {
      for (const status of statuses) {
        const error = serverRefusal(asked, failed, new AlfApiError('restore', status, 'words'));
        expect(error.hint, `${failed} ${status}`).toEqual(expect.any(String));
        // A restore wrote nothing; its hint never speaks of an upload's state.
        if (failed === 'restore_incomplete' && status !== 401) expect(error.hint, `${status}`).not.toMatch(/stored on the server|next sync/);
      }
    }
  });

  it('a 403 of a signed link issued to a key revoked since is the key\'s: auth_failed, with the way to a new key', () => {
    const error = serverRefusal({ command: 'lineage restore', server: 'http://s' }, 'restore_incomplete', new AlfApiError('download', 403, 'signed URL was issued to an API key that has been revoked'));
    expect(error).toMatchObject({
      code: 'auth_failed',
      message: 'lineage restore: the server at http://s refused a link it had signed for a key revoked since (HTTP 403: signed URL was issued to an API key that has been revoked); nothing was stored on the server, nor written here',
      hint: expect.stringMatching(/wrong or was revoked.*lineage keys create.*`lineage restore` again/),
    });
  });

  it('a 507 to a restore: nothing written here, the operator frees space', () => {
    const error = serverRefusal({ command: 'lineage restore', server: 'http://s' }, 'restore_incomplete', new AlfApiError('download', 507, 'disk full'));
    expect(error).toMatchObject({ code: 'restore_incomplete', hint: "the server's disk is full: nothing was written here; ask the server's operator to free space where its data (or its database and blobs) are stored, then run `lineage restore` again" });
  });
});

describe('a real server\'s 413', () => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startTestServer({ maxBodyBytes: 2000 });
  });
  afterAll(() => t.close());

  it('a first snapshot over the server\'s body limit: refused with the server\'s words and what to do, nothing stored', async () => {
    const sb = await makeSandbox('lineage-413-');
    try {
      await sb.write('MEMORY.md', `# M\n\n${Array.from({ length: 60 }, (_, i) => `## Fact ${i}\nThe value of fact ${i} is ${(i * 7919) % 10007} and ${'x'.repeat(i)}.\n`).join('\n')}`);
      const target = httpTarget({ baseUrl: t.url, apiKey: t.keyA, command: 'lineage sync' });
      const error = await syncWorkspace({ runtime: 'openclaw', workspace: sb.workspace, target, alfHome: sb.alfHome, clock: steppingClock() })
        .then(() => null, (e: unknown) => e);
      expect(error).toMatchObject({
        code: 'sync_upload_failed',
        message: expect.stringContaining('(HTTP 413): request body exceeds 2000 bytes'),
        hint: expect.stringMatching(/larger than the server takes.*LINEAGE_MAX_UPLOAD_BYTES.*nothing was stored on the server.*run `lineage sync` again/),
      });
      // Registered by the sync's first request, then removed again when its snapshot was refused: no empty agent left.
      expect(await listed(t, t.keyA)).toEqual([]);
      // Smaller, the next sync is a first sync as if the refused one had never run.
      await sb.write('MEMORY.md', '# M\n\n## Fact 1\nSmall.\n');
      expect(await syncWorkspace({ runtime: 'openclaw', workspace: sb.workspace, target, alfHome: sb.alfHome, clock: steppingClock() })).toMatchObject({ ok: true, sequence: 0, delta: false });
      expect(await listed(t, t.keyA)).toEqual([[readFileSync(path.join(sb.workspace, '.alf-agent-id'), 'utf8').trim(), 0]]);
    } finally {
      await sb.cleanup();
    }
  });

  it('a delta refused whole (413) puts back the record of the upload before it: the workspace names no upload the server never took', async () => {
    const sb = await makeSandbox('lineage-413-sent-');
    try {
      await sb.write('MEMORY.md', '# M\n\n## Fact 1\nSmall.\n');
      const target = httpTarget({ baseUrl: t.url, apiKey: t.keyA, command: 'lineage sync' });
      const clock = steppingClock();
      const run = () => syncWorkspace({ runtime: 'openclaw', workspace: sb.workspace, target, alfHome: sb.alfHome, clock });
      expect(await run()).toMatchObject({ ok: true, sequence: 0 });
      const agent = readFileSync(path.join(sb.workspace, '.alf-agent-id'), 'utf8').trim();
      const before = await readSent(sb.workspace, agent);
      expect(before).toMatchObject({ base_sequence: null });
      await sb.write('MEMORY.md', `# M\n\n## Fact 1\nSmall.\n\n## Noise\n${randomBytes(3000).toString('hex')}\n`);
      expect(await run().then(() => null, (e: unknown) => e)).toMatchObject({ code: 'sync_upload_failed', message: expect.stringContaining('HTTP 413') });
      // Left, a record of a delta never taken made the next sync to the same server with a rotated key fail target_changed.
      expect(await readSent(sb.workspace, agent)).toEqual(before);
    } finally {
      await sb.cleanup();
    }
  });

  it('the agent this sync registered is removed only while it has nothing: a snapshot stored meanwhile keeps it', async () => {
    const agent = randomUUID();
    const target = httpTarget({ baseUrl: t.url, apiKey: t.keyB, command: 'lineage sync' });
    expect(await target.ensureAgent({ id: agent, name: 'raced', runtime: 'openclaw' })).toMatchObject({ alreadyExisted: false });
    // Another machine's first snapshot of the same agent, within the limit, stored between this sync's registration and its upload.
    const small = await snapshotBytes(agent, { records: 1 });
    expect(small.byteLength).toBeLessThan(2000);
    expect((await new AlfApiClient({ baseUrl: t.url, apiKey: t.keyB }).putSnapshot(agent, small)).sequence).toBe(0);
    await expect(target.putSnapshot(agent, new Uint8Array(5000))).rejects.toMatchObject({ code: 'sync_upload_failed', message: expect.stringContaining('HTTP 413') });
    expect(await listed(t, t.keyB)).toEqual([[agent, 0]]);
    expect((await new AlfApiClient({ baseUrl: t.url, apiKey: t.keyB }).restore(agent)).snapshot?.sequence).toBe(0);
  });

  it('a snapshot stored between the undo\'s look and its delete keeps the agent: the delete is asked if_empty, judged by the server', async () => {
    const agent = randomUUID();
    const direct = new AlfApiClient({ baseUrl: t.url, apiKey: t.keyB });
    const small = await snapshotBytes(agent, { records: 1 });
    // A proxy before the server that, when the undo's DELETE reaches it (after the client saw the agent
    // empty), first stores another machine's first snapshot of the agent, then passes the DELETE on.
    const seen: string[] = [];
    const proxy = http.createServer((req, res) => {
      void (async () => {
        const chunks: Buffer[] = [];
        for await (const chunk of req) chunks.push(chunk as Buffer);
        if (req.method === 'DELETE') {
          seen.push(req.url ?? '');
          expect((await direct.putSnapshot(agent, small)).sequence).toBe(0);
        }
        const headers = Object.fromEntries(Object.entries(req.headers).filter(([name]) => name !== 'host' && name !== 'content-length')) as Record<string, string>;
        const answer = await fetch(new URL(req.url ?? '/', t.url), {
          method: req.method, headers, body: chunks.length > 0 ? Buffer.concat(chunks) : undefined,
        });
        res.writeHead(answer.status, Object.fromEntries(answer.headers));
        res.end(Buffer.from(await answer.arrayBuffer()));
      })().catch((error: unknown) => res.destroy(error as Error));
    });
    await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
    try {
      const target = httpTarget({ baseUrl: `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`, apiKey: t.keyB, command: 'lineage sync' });
      expect(await target.ensureAgent({ id: agent, name: 'raced late', runtime: 'openclaw' })).toMatchObject({ alreadyExisted: false });
      await expect(target.putSnapshot(agent, new Uint8Array(5000))).rejects.toMatchObject({ message: expect.stringContaining('HTTP 413') });
      // The other machine's snapshot, acknowledged to it, is there: the conditional delete was refused.
      expect(await listed(t, t.keyB)).toContainEqual([agent, 0]);
      expect(await direct.download((await direct.restore(agent)).snapshot?.url ?? '')).toEqual(small);
      expect(seen).toEqual([expect.stringMatching(/if_empty=true$/)]);
    } finally {
      await new Promise<void>((resolve) => proxy.close(() => resolve()));
    }
  });

  it('DELETE ?if_empty=true: 409 agent_not_empty with an entry, nothing deleted; 200 when empty; any other value a 400', async () => {
    const direct = new AlfApiClient({ baseUrl: t.url, apiKey: t.keyB });
    const full = randomUUID();
    await direct.register({ id: full, name: 'full', source_runtime: 'openclaw' });
    await direct.putSnapshot(full, await snapshotBytes(full, { records: 1 }));
    const answer = (agentId: string, query: string) => fetch(`${t.url}/v1/agents/${agentId}${query}`, { method: 'DELETE', headers: { authorization: `Bearer ${t.keyB}` } })
      .then(async (r) => [r.status, await r.json()] as const);
    expect(await answer(full, '?if_empty=true')).toEqual([409, { error: expect.stringMatching(/holds 1 ledger entry: it was asked to be deleted only if empty, and nothing was deleted/) }]);
    expect((await direct.restore(full)).snapshot?.sequence).toBe(0);
    for (const bad of ['?if_empty=yes', '?if_empty=true&if_empty=true', '?if_empty=']) {
      expect(await answer(full, bad)).toEqual([400, expect.objectContaining({ error: expect.stringContaining('if_empty') })]);
    }
    expect(await listed(t, t.keyB)).toContainEqual([full, 0]);
    const empty = randomUUID();
    await direct.register({ id: empty, name: 'empty', source_runtime: 'openclaw' });
    expect(await answer(empty, '?if_empty=true')).toEqual([200, expect.objectContaining({ deleted: true })]);
    expect((await listed(t, t.keyB)).map(([id]) => id)).not.toContain(empty);
    // Without it, as before: the agent and its entries go.
    expect(await answer(full, '?if_empty=false')).toEqual([200, expect.objectContaining({ deleted: true })]);
  });

  it('an agent that was registered before this sync (an earlier sync killed before its upload) is not removed', async () => {
    const agent = randomUUID();
    await new AlfApiClient({ baseUrl: t.url, apiKey: t.keyB }).register({ id: agent, name: 'earlier', source_runtime: 'openclaw' });
    const target = httpTarget({ baseUrl: t.url, apiKey: t.keyB, command: 'lineage sync' });
    expect(await target.ensureAgent({ id: agent, name: 'earlier', runtime: 'openclaw' })).toEqual({ alreadyExisted: true, latestSequence: null });
    await expect(target.putSnapshot(agent, new Uint8Array(5000))).rejects.toMatchObject({ message: expect.stringContaining('HTTP 413') });
    expect((await listed(t, t.keyB)).map(([id]) => id)).toContain(agent);
  });
});

describe('a first snapshot over the server\'s archive reader limits, and over its limit on a signed upload (the presigned flow)', () => {
  const servers: TestServer[] = [];
  afterAll(async () => {
    for (const s of servers) await s.close();
  });

  it.each([
    ['its archive reader\'s limits', { archive: { maxTotalUncompressedBytes: 4000 } }, 4000, /^upload snapshot failed \(HTTP 413\): invalid archive: archive inflates to more than the total limit of 4000 bytes/],
    ['its LINEAGE_MAX_UPLOAD_BYTES, the snapshot past 6,000,000 bytes', { maxUploadBytes: 1_000_000 }, 0, /^presigned upload failed \(HTTP 413\).*request body exceeds 1000000 bytes/],
  ] as const)('%s: refused, no agent left; the server takes the next, smaller one', async (_what, limits, fill, said) => {
    const t = await startTestServer(limits);
    servers.push(t);
    const sb = await makeSandbox('lineage-limits-');
    try {
      // Past the limit: 5 KB of text; or a snapshot larger than the direct upload takes (random text does not compress).
      const body = fill > 0 ? 'x'.repeat(fill + 1000) : randomBytes(4_600_000).toString('base64');
      await sb.write('MEMORY.md', `# M\n\n## Fact 1\n${body}\n`);
      const target = httpTarget({ baseUrl: t.url, apiKey: t.keyA, command: 'lineage sync' });
      const sync = () => syncWorkspace({ runtime: 'openclaw', workspace: sb.workspace, target, alfHome: sb.alfHome, clock: steppingClock() });
      const error = await sync().then(() => null, (e: unknown) => e);
      expect(error).toMatchObject({ code: 'sync_upload_failed', message: expect.stringMatching(said) });
      expect(await listed(t, t.keyA)).toEqual([]);
      await sb.write('MEMORY.md', '# M\n\n## Fact 1\nSmall.\n');
      expect(await sync()).toMatchObject({ ok: true, sequence: 0, delta: false });
      expect(await listed(t, t.keyA)).toHaveLength(1);
    } finally {
      await sb.cleanup();
    }
  }, 120_000);
});

/** The agents the server lists for `key`: [id, latest_sequence]. */
async function listed(t: TestServer, key: string): Promise<[string, number][]> {
  return (await new AlfApiClient({ baseUrl: t.url, apiKey: key }).listAgents()).map((a) => [a.id, a.latest_sequence]);
}
