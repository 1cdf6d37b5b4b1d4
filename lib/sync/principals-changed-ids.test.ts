/**
 * CONTRACT §3.2: a delta that carries `principals.json` names the principals it changed in its
 * manifest, `changes.principals.changed_ids` (omitted when none can be named); and the principals
 * are compared as the reference's reconcile compares them (CONTRACT §5): by id, a principal's
 * top-level `updated_at` not compared (its `profile.updated_at` is) — a document whose principals
 * are the base's sends nothing. The sync JSON's counts (`changesOf`) say the same operations.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { readDelta, readSnapshot, writeDelta } from '@/lib/core/archive';
import type { AlfDelta } from '@/lib/core/archive/types';
import type { JsonObject } from '@/lib/core/json';
import { validateArchive } from '@/lib/core/validate';
import { listEntries, openLedger, readEntryBytes } from '@/lib/ledger';
import { localTarget } from './local-target';
import { buildDelta, changesOf, syncWorkspace } from './sync';
import { makeSandbox, steppingClock } from './testing/workspace';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const fn of cleanups.splice(0)) await fn();
});

const AGENT = '3b9c7d7e-2f6a-4d4e-8f0a-1c2d3e4f5a6b';
const A = '0b9c7d7e-2f6a-4d4e-8f0a-1c2d3e4f5a61';
const B = '0b9c7d7e-2f6a-4d4e-8f0a-1c2d3e4f5a62';
const C = '0b9c7d7e-2f6a-4d4e-8f0a-1c2d3e4f5a63';
const D = '0b9c7d7e-2f6a-4d4e-8f0a-1c2d3e4f5a64';

/** A principal as the reference's struct reads it; `updated_at` a top-level time some writers add. */
function principal(id: string, prose: string, times: { updated_at?: string; profile?: string } = {}): JsonObject {
  return {
    id, principal_type: 'human', agent_id: null,
    ...(times.updated_at ? { updated_at: times.updated_at } : {}),
    profile: { id, agent_id: AGENT, principal_id: id, version: 1, updated_at: times.profile ?? '2026-10-01T00:00:00Z', prose: { user_profile: prose } },
  };
}

const doc = (...principals: JsonObject[]): JsonObject => ({ principals });

function build(base: JsonObject | undefined, current: JsonObject | undefined): AlfDelta | null {
  return buildDelta({
    base: { raw: new Map(), layers: base ? { principals: base } : {} }, current: { raw: new Map(), layers: current ? { principals: current } : {}, records: [] },
    baseSequence: 3, runtime: 'openclaw', agentId: AGENT, now: new Date('2026-11-01T09:00:00Z'),
  });
}

/** The delta's manifest as written and read back, and whether validate takes the archive. */
async function written(delta: AlfDelta): Promise<{ changes: unknown; valid: boolean }> {
  const bytes = await writeDelta(delta);
  const read = await readDelta(bytes);
  return { changes: read.manifest.changes, valid: (await validateArchive(bytes)).valid };
}

describe('buildDelta: changes.principals.changed_ids', () => {
  it('a principal updated: its id, after `file`, written and valid; the sync JSON counts one update', async () => {
    const base = doc(principal(A, 'Dana'), principal(B, 'Eli'));
    const delta = build(base, doc(principal(A, 'Dana, billing'), principal(B, 'Eli')))!;
    expect(delta.manifest.changes).toEqual({ principals: { file: 'principals.json', changed_ids: [A] } });
    expect(await written(delta)).toEqual({ changes: { principals: { file: 'principals.json', changed_ids: [A] } }, valid: true });
    expect(JSON.stringify((await written(delta)).changes)).toBe('{"principals":{"file":"principals.json","changed_ids":["' + A + '"]}}');
    expect(changesOf(delta, { principals: base }).principals).toEqual({ creates: 0, updates: 1, deletes: 0 });
  });

  it('created, updated, deleted at once: creates and updates in the new order, then deletes in the old; the counts agree', async () => {
    const base = doc(principal(A, 'Dana'), principal(B, 'Eli'), principal(C, 'Fay'));
    const delta = build(base, doc(principal(D, 'Gus'), principal(C, 'Fay'), principal(A, 'Dana!')))!;
    expect((delta.manifest.changes as JsonObject).principals).toEqual({ file: 'principals.json', changed_ids: [D, A, B] });
    expect(changesOf(delta, { principals: base }).principals).toEqual({ creates: 1, updates: 1, deletes: 1 });
    expect((await written(delta)).valid).toBe(true);
  });

  it('every principal gone: {"principals": []}, naming each', async () => {
    const delta = build(doc(principal(A, 'Dana'), principal(B, 'Eli')), undefined)!;
    expect(delta.layers.principals).toEqual({ principals: [] });
    expect((delta.manifest.changes as JsonObject).principals).toEqual({ file: 'principals.json', changed_ids: [A, B] });
    expect(await written(delta)).toEqual({ changes: { principals: { file: 'principals.json', changed_ids: [A, B] } }, valid: true });
  });

  it('the first principals of a workspace: created, named', () => {
    expect((build(undefined, doc(principal(A, 'Dana')))!.manifest.changes as JsonObject).principals).toEqual({ file: 'principals.json', changed_ids: [A] });
  });

  it('only a principal\'s top-level updated_at changed, or only their order: no delta (nothing changed, as the reference compares)', () => {
    const base = doc(principal(A, 'Dana', { updated_at: '2026-10-01T00:00:00Z' }), principal(B, 'Eli'));
    expect(build(base, doc(principal(A, 'Dana', { updated_at: '2026-11-01T00:00:00Z' }), principal(B, 'Eli')))).toBeNull();
    expect(build(base, doc(principal(B, 'Eli'), principal(A, 'Dana', { updated_at: '2026-10-01T00:00:00Z' })))).toBeNull();
    // An empty document where the base had none: nothing to say either.
    expect(build(undefined, doc())).toBeNull();
  });

  it('a profile\'s updated_at is compared (USER.md touched is an update)', () => {
    const delta = build(doc(principal(A, 'Dana')), doc(principal(A, 'Dana', { profile: '2026-11-01T00:00:00Z' })))!;
    expect((delta.manifest.changes as JsonObject).principals).toEqual({ file: 'principals.json', changed_ids: [A] });
  });

  it('a principal without a string id is counted but not named; none named: changed_ids omitted', () => {
    const nameless = { principal_type: 'human', profile: null };
    const delta = build(doc(principal(A, 'Dana')), doc(principal(A, 'Dana'), nameless))!;
    expect(delta.layers.principals).toEqual(doc(principal(A, 'Dana'), nameless));
    expect(delta.manifest.changes).toEqual({});
    expect(changesOf(delta, { principals: doc(principal(A, 'Dana')) }).principals).toEqual({ creates: 1, updates: 0, deletes: 0 });
  });
});

it('a real OpenClaw sync: USER.md edited, then removed — each delta in the ledger names the human principal', async () => {
  const sb = await makeSandbox('lineage-changed-ids-');
  cleanups.push(sb.cleanup);
  const clock = steppingClock();
  const sync = () => syncWorkspace({ runtime: 'openclaw', workspace: sb.workspace, target: localTarget(sb.dataDir, clock), alfHome: sb.alfHome, clock });
  await sb.write('MEMORY.md', '# Memory\n\n## Owner\nDana owns billing.\n');
  await sb.write('USER.md', 'Dana, in Lisbon.\n');
  const first = await sync();
  const agentId = first.agent.alf_agent_id;
  const lastChanges = async () => {
    const ledger = openLedger(sb.dataDir);
    const entries = listEntries({ ledger, agentId });
    const delta = await readDelta(await readEntryBytes({ ledger, entry: entries.at(-1)! }));
    return { changes: delta.manifest.changes as JsonObject, principals: delta.layers.principals };
  };
  const human = (await humanPrincipalOf(sb.dataDir, agentId)).id;

  await sb.write('USER.md', 'Dana, in Porto.\n');
  expect(await sync()).toMatchObject({ sequence: 1, changes: { principals: { creates: 0, updates: 1, deletes: 0 } } });
  expect((await lastChanges()).changes.principals).toEqual({ file: 'principals.json', changed_ids: [human] });

  fs.rmSync(path.join(sb.workspace, 'USER.md'));
  expect(await sync()).toMatchObject({ sequence: 2, changes: { principals: { creates: 0, updates: 0, deletes: 1 } } });
  expect(await lastChanges()).toEqual({ changes: { principals: { file: 'principals.json', changed_ids: [human] }, raw: { deleted: ['raw/openclaw/USER.md'] } }, principals: { principals: [] } });
});

/** The human principal of the agent's first snapshot. */
async function humanPrincipalOf(dataDir: string, agentId: string): Promise<{ id: string }> {
  const ledger = openLedger(dataDir);
  const snapshot = await readSnapshot(await readEntryBytes({ ledger, entry: listEntries({ ledger, agentId })[0]! }));
  const list = snapshot.layers.principals?.principals;
  if (!Array.isArray(list) || list.length !== 1) throw new Error('expected one principal in the first snapshot');
  return { id: (list[0] as JsonObject).id as string };
}
