/**
 * Two machines syncing one agent, and a full snapshot between them (lib/ledger/ingest-base.ts).
 * Machine A syncs (snapshot at 0, delta at 1); machine B, a copy of A's workspace with its own
 * memory and no sync state, uploads `--force-first-sync`: a snapshot at 1 (a snapshot does not
 * advance the sequence, CONTRACT §1.3), the head. A's next delta still names base 1, but was built on
 * A's delta at 1: it used to be taken and folded onto B's snapshot, so the head's records held B's
 * memory while its MEMORY.md was A's file (search found B's fact "present", the restored workspace
 * did not hold it). Now it is refused with a clear error naming `--rebase`, nothing changes on either
 * side, B's own next delta on its snapshot is taken, and after the rebase A's delta is taken and the
 * head's records and files agree. On the embedded ledger (a `--data` directory and a served
 * instance over HTTP) and on the scale-out one (PostgreSQL + radosgw: `--database-url` and a served
 * instance over HTTP). The protocol's answers (409 + X-Latest-Sequence, `base_timestamp` compared to
 * the nanosecond across offsets, a delta without it taken) are at the end.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeDelta, writeSnapshot } from '@/lib/core/archive';
import type { JsonObject } from '@/lib/core/json';
import { createLineageServer, type LineageServer } from '@/lib/server/http-server';
import { openStorage, storageConfigFrom } from '@/lib/storage/config';
import type { LineageStorage } from '@/lib/storage/types';
import { httpTarget } from '@/lib/sync/http-target';
import { localTarget } from '@/lib/sync/local-target';
import { rebaseWorkspace } from '@/lib/sync/rebase';
import { restoreAgent } from '@/lib/sync/restore';
import { storageTarget } from '@/lib/sync/storage-target';
import type { SyncTarget } from '@/lib/sync/target';
import { A_MEMORY, B_MEMORY, clientState, replacedByB, sections } from '@/lib/sync/testing/two-machines';
import { makeSandbox, readTree, steppingClock } from '@/lib/sync/testing/workspace';
import { freshBucket, freshDatabase, scaleOutEnv } from '@/tests/engines/use-engines';
import { record } from './archives';
import { call, tempDataDir } from './harness';

/** A target, and the storage behind it read the way the dashboard and search read it. */
interface Setup { target: SyncTarget; storage: LineageStorage | null; close(): Promise<void> }

async function scaleOutStorage(): Promise<LineageStorage> {
  const [url, { bucket, settings }] = await Promise.all([freshDatabase(), freshBucket()]);
  return openStorage(storageConfigFrom(scaleOutEnv(url, bucket, settings)));
}

async function served(storage?: LineageStorage): Promise<{ server: LineageServer; key: string }> {
  const server = await createLineageServer({ dataDir: tempDataDir(), storage, secret: randomBytes(32), port: 0, ui: false, log: () => undefined });
  const { key } = await server.service.storage.createApiKey({ name: 'machines', now: new Date() });
  return { server, key };
}

const SETUPS: [string, (dataDir: string) => Promise<Setup>][] = [
  ['a --data directory (embedded ledger)', async (dataDir) => {
    const target = localTarget(dataDir, () => new Date(), { packing: 'inline', indexing: 'inline' });
    // Opened once the first sync made the directory (the target keeps its own handle).
    return { target, storage: null, close: async () => {} };
  }],
  ['a served instance over HTTP (embedded ledger)', async () => {
    const { server, key } = await served();
    return { target: httpTarget({ baseUrl: `${server.url}/v1`, apiKey: key }), storage: server.service.storage, close: () => server.close() };
  }],
  ['--database-url/--blob-url (PostgreSQL + radosgw)', async () => {
    const [url, { bucket, settings }] = await Promise.all([freshDatabase(), freshBucket()]);
    const config = storageConfigFrom(scaleOutEnv(url, bucket, settings));
    const storage = await openStorage(config);
    const target = storageTarget({ open: () => openStorage(config), label: 'the scale-out storage', flags: '--database-url URL --blob-url URL' });
    return { target, storage, close: async () => { await target.close(); await storage.close(); } };
  }],
  ['a served instance over HTTP (PostgreSQL + radosgw)', async () => {
    const { server, key } = await served(await scaleOutStorage());
    // The server closes the storage it was handed.
    return { target: httpTarget({ baseUrl: `${server.url}/v1`, apiKey: key }), storage: server.service.storage, close: () => server.close() };
  }],
];

describe.each(SETUPS)('two machines, one agent: %s', (_name, make) => {
  it('a delta built on the head a --force-first-sync replaced is refused, nothing changes; B goes on; A rebases, then its delta is taken and the head agrees with itself', async () => {
    const sb = await makeSandbox('lineage-two-machines-');
    const setup = await make(sb.dataDir);
    const opened: { local?: LineageStorage } = {};
    const storage = async () => setup.storage ?? (opened.local ??= await openStorage(storageConfigFrom({}, { data: sb.dataDir })));
    try {
      const { target } = setup;
      // One clock for both machines (their clocks agree), a minute per reading.
      const clock = steppingClock();
      const { agentId, wsA, homeA, wsB, syncA, syncB } = await replacedByB({ sb, target, clockA: clock, clockB: clock });

      // A's next edit: its delta on its own base at 1 is refused.
      await sb.write('MEMORY.md', `${A_MEMORY}\n## Alpha2\nsecond alpha\n`);
      const homeBefore = await clientState(homeA);
      const wsBefore = await readTree(wsA, []);
      const refused = await syncA().then(() => null, (e: unknown) => e as { code: string; message: string; hint: string });
      expect(refused).toMatchObject({ code: 'sync_upload_failed' });
      expect(refused!.message).toMatch(new RegExp(`^Sequence conflict: the head of agent ${agentId} at sequence 1 on .* is a full snapshot another machine uploaded .* after this machine's base at that sequence: .* refused and nothing was uploaded or changed here$`));
      expect(refused!.hint).toContain(`run \`lineage sync --rebase -r openclaw -w ${wsA} ${target.flags}\` to take that snapshot as this machine's base without changing the workspace`);
      expect(await clientState(homeA)).toEqual(homeBefore);
      expect(await readTree(wsA, [])).toEqual(wsBefore);

      const s = await storage();
      expect((await s.listEntries({ agentId })).map((e) => `${e.seq}:${e.kind}`)).toEqual(['0:snapshot', '1:delta', '1:snapshot']);
      // The head is B's snapshot, whole: its records, its file, its restore.
      const bMemory = B_MEMORY;
      expect(Buffer.from((await s.getWorkspaceFile({ agentId, seq: 1, path: 'MEMORY.md' }))!).toString()).toBe(bMemory);
      expect((await s.search({ q: 'second alpha', agentId })).total).toBe(0);

      // B's own next delta, on its snapshot, is taken (its base_timestamp is its snapshot's created_at).
      const bMemory2 = `${bMemory}\n## Bravo2\nanother from B\n`;
      await fs.writeFile(path.join(wsB, 'MEMORY.md'), bMemory2);
      expect(await syncB()).toMatchObject({ sequence: 2, delta: true, changes: { creates: 1, updates: 0, deletes: 0 } });

      // A takes the head as its base (the workspace untouched) and syncs: its workspace's difference from B's.
      expect(await rebaseWorkspace({ runtime: 'openclaw', workspace: wsA, target, alfHome: homeA, clock })).toMatchObject({ sequence: 2, previous_sequence: 1 });
      const aMemory = (await fs.readFile(path.join(wsA, 'MEMORY.md'))).toString();
      expect(await syncA()).toMatchObject({ sequence: 3, delta: true, changes: { creates: 2, updates: 0, deletes: 2 } });

      // The head agrees with itself: its records are its MEMORY.md's sections, search and restore say the same.
      const records = await s.getRecordsAt({ agentId, at: 3 });
      expect((records as { items: { content: string }[] }).items.map((r) => r.content.trimEnd()).sort()).toEqual(sections(aMemory).sort());
      expect(Buffer.from((await s.getWorkspaceFile({ agentId, seq: 3, path: 'MEMORY.md' }))!).toString()).toBe(aMemory);
      expect((await s.search({ q: 'bravo', agentId })).status).toMatchObject({ present: false, gone_at_sequence: 3 });
      expect((await s.search({ q: 'second alpha', agentId })).status).toMatchObject({ present: true, last_seen_sequence: 3 });
      const out = path.join(sb.root, 'restored');
      await restoreAgent({ runtime: 'openclaw', target, agentId, out, replace: false, alfHome: path.join(sb.root, 'home-r'), clock });
      expect(await readTree(out)).toEqual(await readTree(wsA));
    } finally {
      await opened.local?.close();
      await setup.close();
      await sb.cleanup();
    }
  }, 180_000);
});

// ---- the protocol: what a reference client (or any) sees ----

const OCTET = 'application/octet-stream';
/** The replacing snapshot's created_at: nanoseconds, as the reference's chrono writes them. */
const CREATED_AT = '2026-05-03T10:00:00.123456789Z';

async function snapshotAt(agentId: string, createdAt: string, n: number): Promise<Uint8Array> {
  return writeSnapshot({
    manifest: { alf_version: '1.0.0', created_at: createdAt, agent: { id: agentId, name: 'machines', source_runtime: 'openclaw' }, layers: {} },
    records: [record(agentId, n, `snapshot fact ${n}`)],
    layers: {},
    raw: new Map([['raw/openclaw/MEMORY.md', Buffer.from(`# Memory\n\n## Snapshot ${n}\n`)]]),
    extra: new Map(),
  });
}

async function deltaOn(agentId: string, baseSequence: number, n: number, baseTimestamp?: string, createdAt = '2026-05-03T11:00:00Z'): Promise<Uint8Array> {
  const sync: JsonObject = { base_sequence: baseSequence, new_sequence: 0 };
  if (baseTimestamp !== undefined) sync.base_timestamp = baseTimestamp;
  return writeDelta({
    manifest: { alf_version: '1.0.0', created_at: createdAt, agent: { id: agentId, source_runtime: 'openclaw' }, sync, changes: {} },
    entries: [{ operation: 'create', record: record(agentId, 1000 + n, `delta fact ${n}`) }],
    layers: {},
    rawChanged: new Map([[`raw/openclaw/memory/day-${n}.md`, Buffer.from(`## Day ${n}\n`)]]),
    rawDeleted: [],
  });
}

describe.each([['the embedded ledger', () => served()], ['PostgreSQL + radosgw', async () => served(await scaleOutStorage())]] as const)(
  'the protocol on %s: a delta on a base a snapshot replaced at its sequence',
  (_name, start) => {
    let server: LineageServer;
    let key: string;
    beforeAll(async () => {
      ({ server, key } = await start());
    }, 120_000);
    afterAll(() => server?.close());

    /** An agent with a snapshot at 0, a delta at 1, and a snapshot made at CREATED_AT stored at 1 (the head). */
    async function replacedHead(): Promise<string> {
      const agentId = crypto.randomUUID();
      const base = `${server.url}/v1/agents/${agentId}`;
      expect((await call(`${server.url}/v1/agents`, { method: 'POST', key, contentType: 'application/json', body: JSON.stringify({ id: agentId, name: 'm', source_runtime: 'openclaw' }) })).status).toBe(201);
      expect((await call(`${base}/snapshot`, { method: 'PUT', key, contentType: OCTET, body: await snapshotAt(agentId, '2026-05-01T00:00:00Z', 1) })).json).toMatchObject({ sequence: 0 });
      expect((await call(`${base}/deltas?base_sequence=0`, { method: 'POST', key, contentType: OCTET, body: await deltaOn(agentId, 0, 1, '2026-05-01T00:00:00Z') })).json).toMatchObject({ sequence: 1 });
      expect((await call(`${base}/snapshot`, { method: 'PUT', key, contentType: OCTET, body: await snapshotAt(agentId, CREATED_AT, 2) })).json).toMatchObject({ sequence: 1 });
      return agentId;
    }

    const push = async (agentId: string, body: Uint8Array) => call(`${server.url}/v1/agents/${agentId}/deltas?base_sequence=1`, { method: 'POST', key, contentType: OCTET, body });
    const entries = async (agentId: string) => (await server.service.storage.listEntries({ agentId })).map((e) => `${e.seq}:${e.kind}`);

    it('base_timestamp older than the snapshot (by a nanosecond, in any offset): 409, X-Latest-Sequence the base, nothing stored; equal: taken', async () => {
      const agentId = await replacedHead();
      for (const older of ['2026-05-03T10:00:00.123456788Z', '2026-05-03T12:00:00.123456788+02:00', '2026-05-03T09:59:59Z']) {
        const refused = await push(agentId, await deltaOn(agentId, 1, 2, older));
        expect(refused.status).toBe(409);
        expect(refused.headers.get('x-latest-sequence')).toBe('1');
        expect(refused.json).toMatchObject({ code: 'base_superseded', latest_sequence: 1 });
        expect(refused.json.error).toBe(`the head of agent ${agentId} at sequence 1 is a full snapshot uploaded after the base this delta was built on `
          + `(its delta-manifest.json sync.base_timestamp ${older} is older than that snapshot's manifest.json created_at ${CREATED_AT}); `
          + 'nothing was stored: take the head at sequence 1 as the base (restore it) and sync again');
      }
      expect(await entries(agentId)).toEqual(['0:snapshot', '1:delta', '1:snapshot']);
      // The same instant written with another offset is not older.
      const taken = await push(agentId, await deltaOn(agentId, 1, 2, '2026-05-03T12:00:00.123456789+02:00'));
      expect(taken.status).toBe(201);
      expect(taken.json).toMatchObject({ sequence: 2 });
      expect(await entries(agentId)).toEqual(['0:snapshot', '1:delta', '1:snapshot', '2:delta']);
    });

    it('through the presigned flow (initiate, PUT, confirm): the confirm answers the same 409, nothing stored', async () => {
      const agentId = await replacedHead();
      const initiated = await call(`${server.url}/v1/agents/${agentId}/deltas/upload?base_sequence=1`, { method: 'POST', key, contentType: 'application/json' });
      expect(initiated.status).toBe(200);
      const put = await fetch(initiated.json.upload_url, { method: 'PUT', headers: { 'content-type': OCTET }, body: (await deltaOn(agentId, 1, 2, '2026-05-03T09:00:00Z')) as BodyInit });
      expect(put.ok).toBe(true);
      const confirmed = await call(`${server.url}/v1/agents/${agentId}/deltas/upload/${initiated.json.delta_id}/confirm`, { method: 'POST', key });
      expect(confirmed.status).toBe(409);
      expect(confirmed.headers.get('x-latest-sequence')).toBe('1');
      expect(confirmed.json).toMatchObject({ code: 'base_superseded' });
      expect(await entries(agentId)).toEqual(['0:snapshot', '1:delta', '1:snapshot']);
    });

    it('a delta without base_timestamp cannot be told apart: taken, as before', async () => {
      const agentId = await replacedHead();
      const taken = await push(agentId, await deltaOn(agentId, 1, 2));
      expect(taken.status).toBe(201);
      expect(taken.json).toMatchObject({ sequence: 2 });
    });
  },
);

describe.each([['the embedded ledger', () => served()], ['PostgreSQL + radosgw', async () => served(await scaleOutStorage())]] as const)(
  'the protocol on %s: the entry at the base sequence, whatever its kind, was made no later than the delta\'s base_timestamp',
  (_name, start) => {
    let server: LineageServer;
    let key: string;
    beforeAll(async () => {
      ({ server, key } = await start());
    }, 120_000);
    afterAll(() => server?.close());

    const agentUrl = (agentId: string) => `${server.url}/v1/agents/${agentId}`;
    const push = async (agentId: string, base: number, body: Uint8Array) => call(`${agentUrl(agentId)}/deltas?base_sequence=${base}`, { method: 'POST', key, contentType: OCTET, body });
    const entries = async (agentId: string) => (await server.service.storage.listEntries({ agentId })).map((e) => `${e.seq}:${e.kind}`);

    /** An agent whose only entry is a snapshot made at `createdAt` (sequence 0). */
    async function snapshotHead(createdAt: string): Promise<string> {
      const agentId = crypto.randomUUID();
      expect((await call(`${server.url}/v1/agents`, { method: 'POST', key, contentType: 'application/json', body: JSON.stringify({ id: agentId, name: 'm', source_runtime: 'openclaw' }) })).status).toBe(201);
      expect((await call(`${agentUrl(agentId)}/snapshot`, { method: 'PUT', key, contentType: OCTET, body: await snapshotAt(agentId, createdAt, 1) })).json).toMatchObject({ sequence: 0 });
      return agentId;
    }

    /** An agent with an old snapshot at 0 and, the head, a delta at 1 made at CREATED_AT. */
    async function deltaHead(): Promise<string> {
      const agentId = await snapshotHead('2026-05-01T00:00:00Z');
      expect((await push(agentId, 0, await deltaOn(agentId, 0, 1, '2026-05-01T00:00:00Z', CREATED_AT))).json).toMatchObject({ sequence: 1 });
      return agentId;
    }

    it('a delta head (a history that went on from a backup): base_timestamp a nanosecond older than its created_at is refused (409, X-Latest-Sequence, nothing stored); equal in another offset, or none, is taken', async () => {
      const agentId = await deltaHead();
      for (const older of ['2026-05-03T10:00:00.123456788Z', '2026-05-03T12:00:00.123456788+02:00']) {
        const refused = await push(agentId, 1, await deltaOn(agentId, 1, 2, older));
        expect(refused.status).toBe(409);
        expect(refused.headers.get('x-latest-sequence')).toBe('1');
        expect(refused.json).toMatchObject({ code: 'base_superseded', latest_sequence: 1 });
        expect(refused.json.error).toBe(`the head of agent ${agentId} at sequence 1 is a delta made after the base this delta was built on `
          + '(the agent\'s history went on from an earlier sequence, e.g. storage restored from a backup, and reached this sequence again) '
          + `(its delta-manifest.json sync.base_timestamp ${older} is older than that delta's delta-manifest.json created_at ${CREATED_AT}); `
          + 'nothing was stored: take the head at sequence 1 as the base (restore it) and sync again');
      }
      expect(await entries(agentId)).toEqual(['0:snapshot', '1:delta']);
      const taken = await push(agentId, 1, await deltaOn(agentId, 1, 2, '2026-05-03T12:00:00.123456789+02:00'));
      expect(taken.status).toBe(201);
      expect(taken.json).toMatchObject({ sequence: 2 });
      // A delta without base_timestamp cannot be told apart: taken, as before.
      expect((await push(agentId, 2, await deltaOn(agentId, 2, 3))).json).toMatchObject({ sequence: 3 });
      expect(await entries(agentId)).toEqual(['0:snapshot', '1:delta', '2:delta', '3:delta']);
    });

    it('a snapshot head alone at its sequence (a first sync): a nanosecond older is refused, equal taken, none taken', async () => {
      const agentId = await snapshotHead(CREATED_AT);
      const refused = await push(agentId, 0, await deltaOn(agentId, 0, 1, '2026-05-03T10:00:00.123456788Z'));
      expect(refused.status).toBe(409);
      expect(refused.headers.get('x-latest-sequence')).toBe('0');
      expect(refused.json).toMatchObject({ code: 'base_superseded', latest_sequence: 0 });
      expect(refused.json.error).toContain(`(its delta-manifest.json sync.base_timestamp 2026-05-03T10:00:00.123456788Z is older than that snapshot's manifest.json created_at ${CREATED_AT})`);
      expect(await entries(agentId)).toEqual(['0:snapshot']);
      expect((await push(agentId, 0, await deltaOn(agentId, 0, 1, CREATED_AT))).json).toMatchObject({ sequence: 1 });
      const other = await snapshotHead(CREATED_AT);
      expect((await push(other, 0, await deltaOn(other, 0, 1))).json).toMatchObject({ sequence: 1 });
    });
  },
);
