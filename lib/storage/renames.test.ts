/**
 * Renamed sections keep their lineage (provenance.ts `linkMoves`' second pass), through a real
 * OpenClaw sync history ingested into both backends — the embedded one (SQLite + fs) and the
 * scale-out one (the run's real PostgreSQL 15 + radosgw) — asking history, compare, blame, search
 * and the changes feed: the answers are equal and say the truth.
 *
 *   #1 `## Boston` → `## Boston Office`, same body (a rename in its file)
 *   #2 `## NYC` of MEMORY.md → `## New York` of people.md, same body (moved and renamed)
 *   #3 `## Denver` → `## Denver DC` with its body edited (stays a create and a delete)
 *   #4 two sections of one body renamed in one sync (paired in place order)
 *   #5 a heading removed, its body kept (one lineage)
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openPgDatabase, type PgLineageDb } from '@/db/pg/client';
import { closeDatabase } from '@/db/client';
import { openLedger, type Ledger } from '@/lib/ledger/ledger';
import { S3BlobStore } from '@/lib/ledger/s3-blob-store';
import { localTarget } from '@/lib/sync/local-target';
import { syncWorkspace } from '@/lib/sync/sync';
import { makeSandbox, steppingClock } from '@/lib/sync/testing/workspace';
import { freshBucket, freshDatabase, testS3Client, usePostgres, useRadosgw } from '@/tests/engines/use-engines';
import { embeddedStorage } from './embedded';
import { scaleOutStorage } from './scale-out';
import type { LineageStorage } from './types';
import { dumpEmbedded, dumpPg } from './testing/dumps';

const MEMORY = 'MEMORY.md';
const PEOPLE = 'memory/semantic/people.md';
const VENDORS = 'memory/semantic/vendors.md';
const BOSTON = 'Office on Summer St., badge reader on floor 3.';
const NYC = 'Desk at Hudson Yards, ask for Priya.';
const QUIET = 'All quiet overnight.';

const memoryFile = (s: { boston: string; nyc: boolean; denver: string; checks: [string, string] }) => [
  '# MEMORY', '',
  `## ${s.boston}`, BOSTON, '',
  ...(s.nyc ? ['## NYC', NYC, ''] : []),
  s.denver, '',
  `## ${s.checks[0]}`, QUIET, '',
  `## ${s.checks[1]}`, QUIET, '',
].join('\n');

interface Upload { kind: 'snapshot' | 'delta'; seq: number; bytes: Uint8Array; now: Date }

/** The real history: a workspace synced to a local data directory at each step; its ledger's archives. */
async function renameHistory(): Promise<{ agentId: string; uploads: Upload[] }> {
  const sb = await makeSandbox('lineage-renames-');
  const clock = steppingClock();
  const target = localTarget(sb.dataDir, clock);
  const sync = () => syncWorkspace({ runtime: 'openclaw', workspace: sb.workspace, target, alfHome: sb.alfHome, clock });
  let ledger: Ledger | null = null;
  try {
    const state = { boston: 'Boston', nyc: true, denver: '## Denver\nDatacenter lease ends in March.', checks: ['Check A', 'Check B'] as [string, string] };
    const write = () => sb.write(MEMORY, memoryFile(state));
    await write();
    await sb.write(VENDORS, '## Vendors\nAcme supplies the racks.\n');
    const first = await sync();
    state.boston = 'Boston Office';
    await write();
    await sync();
    state.nyc = false;
    await write();
    await sb.write(PEOPLE, `## New York\n\n${NYC}\n`);
    await sync();
    state.denver = '## Denver DC\nDatacenter lease ends in April.';
    await write();
    await sync();
    state.checks = ['Check One', 'Check Two'];
    await write();
    await sync();
    await sb.write(VENDORS, 'Acme supplies the racks.\n');
    const last = await sync();
    expect(last.sequence).toBe(5);
    const agentId = first.agent.alf_agent_id;
    ledger = openLedger(sb.dataDir);
    const source = embeddedStorage(ledger);
    const uploads: Upload[] = [];
    for (const entry of await source.listEntries({ agentId })) {
      uploads.push({ kind: entry.kind, seq: entry.seq, bytes: await source.readEntryBytes({ entry }), now: new Date(entry.created_at) });
    }
    return { agentId, uploads };
  } finally {
    if (ledger) closeDatabase(ledger.db);
    await sb.cleanup();
  }
}

let agentId = '';
let dir = '';
let ledger: Ledger;
let pgDb: PgLineageDb;
const storages = {} as { embedded: LineageStorage; scaleOut: LineageStorage };

/** Asks both backends; their answers must be equal; returns the embedded one's. */
async function same<T>(ask: (s: LineageStorage) => Promise<T>): Promise<T> {
  const embedded = await ask(storages.embedded);
  expect(await ask(storages.scaleOut)).toEqual(embedded);
  return embedded;
}

beforeAll(async () => {
  const [history] = await Promise.all([renameHistory(), usePostgres(), useRadosgw()]);
  agentId = history.agentId;
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'lineage-renames-'));
  ledger = openLedger(dir);
  const [url, { bucket, settings }] = await Promise.all([freshDatabase(), freshBucket()]);
  pgDb = await openPgDatabase(url);
  const client = testS3Client(settings);
  const location = { bucket, prefix: 'lineage' };
  storages.embedded = embeddedStorage(ledger);
  storages.scaleOut = scaleOutStorage({ db: pgDb, blobs: new S3BlobStore(client, location), client, location });
  const now = new Date(history.uploads[0]!.now.getTime() - 60_000);
  await same((s) => s.registerAgent({ id: agentId, name: 'renames', sourceRuntime: 'openclaw', tenantId: null, now }));
  for (const u of history.uploads) {
    const answer = await same((s) => (u.kind === 'snapshot'
      ? s.ingestSnapshot({ agentId, bytes: u.bytes, now: u.now, tenantId: null })
      : s.ingestDelta({ agentId, baseSequence: u.seq - 1, bytes: u.bytes, now: u.now, tenantId: null })));
    expect(answer.sequence).toBe(u.seq);
  }
}, 120_000);

afterAll(async () => {
  await storages.embedded?.close();
  await storages.scaleOut?.close();
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

const changesAt = async (seq: number) => (await same((s) => s.getChanges({ since: new Date(0), agentId })))
  .groups.flatMap((g) => g.changes).filter((c) => c.seq === seq).map((c) => [c.op, c.from_file ?? null, c.origin_file]).sort();

/** The live record at `seq` whose content holds `text`. */
async function recordWith(seq: number, text: string) {
  const page = (await same((s) => s.getRecordsAt({ agentId, at: seq, limit: 100 })))!;
  const found = page.items.filter((r) => r.content.includes(text));
  expect(found).toHaveLength(1);
  return found[0]!;
}

describe('a renamed section keeps its lineage, on both backends', () => {
  it('the index the two backends folded is the same', async () => {
    expect(await dumpPg(pgDb)).toEqual(dumpEmbedded(ledger));
  });

  it('a heading renamed in its file (#1): one move in the feed, one chain in the history, born #0 in blame, first seen #0 in search', async () => {
    expect(await changesAt(1)).toEqual([['move', MEMORY, MEMORY]]);
    const renamed = await recordWith(1, BOSTON);
    const lineage = (await same((s) => s.getRecordLineage({ agentId, recordId: renamed.record_id })))!;
    expect(lineage.chain).toHaveLength(2);
    expect(lineage.versions.map((v) => [v.op, v.seq, v.heading])).toEqual([['create', 0, 'Boston'], ['move', 1, 'Boston Office']]);
    expect(lineage.versions[1]).toMatchObject({ from_file: MEMORY, to_file: MEMORY, from_record_id: lineage.chain[0], to_record_id: renamed.record_id });
    expect(lineage.record).toMatchObject({ born_seq: 0, born_file: MEMORY, deleted_seq: null });
    const old = (await same((s) => s.getRecordLineage({ agentId, recordId: lineage.chain[0]! })))!;
    expect([old.chain, old.versions]).toEqual([lineage.chain, lineage.versions]);

    const compare = (await same((s) => s.compareWorkspace({ agentId, from: 0, to: 1 })))!;
    expect(compare.counts).toMatchObject({ created: 0, deleted: 0, updated: 0, moved: 1 });
    expect(compare.memories.moved[0]).toMatchObject({ before: { heading: 'Boston', origin_file: MEMORY }, after: { heading: 'Boston Office', origin_file: MEMORY }, content_changed: true });

    const blame = (await same((s) => s.getFileBlame({ agentId, seq: 1, path: MEMORY })))!;
    const block = blame.blocks.find((b) => b.kind === 'section' && b.record_id === renamed.record_id);
    // Born #0; its text (the heading line) last changed by the rename at #1.
    expect(block).toMatchObject({ heading: 'Boston Office', born: { seq: 0, file: MEMORY, record_id: lineage.chain[0] }, changed: { seq: 1 }, moved: { seq: 1, from_file: MEMORY, to_file: MEMORY } });

    const search = await same((s) => s.search({ q: '"Summer St"', agentId }));
    expect(search.first).toMatchObject({ sequence: 0, op: 'create' });
    // A rename, as the lineage says it (search engine.ts `appearanceOp`): not "moved".
    expect(search.appearances.map((a) => [a.sequence, a.op])).toEqual([[1, 'rename']]);
  });

  it('a section moved to another file under another heading (#2) is one move', async () => {
    expect(await changesAt(2)).toEqual([['move', MEMORY, PEOPLE]]);
    const moved = await recordWith(2, NYC);
    const lineage = (await same((s) => s.getRecordLineage({ agentId, recordId: moved.record_id })))!;
    expect(lineage.versions.map((v) => [v.op, v.seq, v.origin_file, v.heading])).toEqual([['create', 0, MEMORY, 'NYC'], ['move', 2, PEOPLE, 'New York']]);
    const blame = (await same((s) => s.getFileBlame({ agentId, seq: 2, path: PEOPLE })))!;
    expect(blame.blocks.find((b) => b.kind === 'section' && b.record_id === moved.record_id)).toMatchObject({ born: { seq: 0, file: MEMORY }, changed: { seq: 2 }, moved: { seq: 2, from_file: MEMORY, to_file: PEOPLE } });
    const search = await same((s) => s.search({ q: 'Hudson Yards', agentId }));
    expect(search.first).toMatchObject({ sequence: 0, op: 'create' });
    expect(search.appearances.map((a) => a.op)).not.toContain('create');
    // Moved to another file (renamed on the way): a move.
    expect(search.appearances.filter((a) => a.sequence === 2).map((a) => [a.op, a.origin_file])).toEqual([['move', PEOPLE]]);
  });

  it('a section renamed with its body edited (#3) stays a create and a delete', async () => {
    expect(await changesAt(3)).toEqual([['create', null, MEMORY], ['delete', null, MEMORY]]);
    const edited = await recordWith(3, 'April');
    expect((await same((s) => s.getRecordLineage({ agentId, recordId: edited.record_id })))!.chain).toEqual([edited.record_id]);
  });

  it('two sections of one body renamed in one sync (#4) pair in place order', async () => {
    expect(await changesAt(4)).toEqual([['move', MEMORY, MEMORY], ['move', MEMORY, MEMORY]]);
    const page = (await same((s) => s.getRecordsAt({ agentId, at: 4, limit: 100 })))!;
    const pairs = [];
    for (const heading of ['Check One', 'Check Two']) {
      const r = page.items.find((x) => x.heading === heading)!;
      const lineage = (await same((s) => s.getRecordLineage({ agentId, recordId: r.record_id })))!;
      pairs.push(lineage.versions.map((v) => v.heading));
    }
    expect(pairs).toEqual([['Check A', 'Check One'], ['Check B', 'Check Two']]);
  });

  it('a heading removed, the body kept (#5), is one lineage', async () => {
    expect(await changesAt(5)).toEqual([['move', VENDORS, VENDORS]]);
    const kept = await recordWith(5, 'Acme');
    const lineage = (await same((s) => s.getRecordLineage({ agentId, recordId: kept.record_id })))!;
    expect(lineage.versions.map((v) => [v.op, v.seq, v.heading])).toEqual([['create', 0, 'Vendors'], ['move', 5, null]]);
    const compare = (await same((s) => s.compareWorkspace({ agentId, from: 0, to: 5 })))!;
    expect(compare.counts).toMatchObject({ moved: 5, created: 1, deleted: 1, updated: 0 });
  });

  it('rebuild == incremental with renames, on each backend (`index --rebuild` is how an index folded before this rule gets them)', async () => {
    const [embedded, pg] = [dumpEmbedded(ledger), await dumpPg(pgDb)];
    await storages.embedded.rebuildIndex();
    await storages.scaleOut.rebuildIndex();
    expect(dumpEmbedded(ledger)).toEqual(embedded);
    expect(await dumpPg(pgDb)).toEqual(pg);
  });
});
