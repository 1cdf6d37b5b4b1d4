import { afterEach, describe, expect, it } from 'vitest';
import { seedStateDb, writeFiles } from '@/lib/adapters/hermes/test-support';
import type { Runtime } from '@/lib/adapters/types';
import type { AlfDelta } from '@/lib/core/archive/types';
import type { JsonObject } from '@/lib/core/json';
import { localTarget } from './local-target';
import { changesOf, syncWorkspace, type StateLayout } from './sync';
import { makeSandbox, steppingClock } from './testing/workspace';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const fn of cleanups.splice(0)) await fn();
});

/**
 * CONTRACT §2.3: the sync JSON's `changes` says what the delta changed in the principals
 * (`{creates, updates, deletes}`, diffed by id) and the identity (`identity: true`) besides the
 * memory records, each omitted when the delta does not change it — in the reference's key order.
 */
const CASES = [
  { name: 'openclaw (store)', runtime: 'openclaw', layout: 'store', user: 'USER.md', soul: 'SOUL.md', memory: 'MEMORY.md' },
  { name: 'openclaw (.alf)', runtime: 'openclaw', layout: 'alf', user: 'USER.md', soul: 'SOUL.md', memory: 'MEMORY.md' },
  { name: 'hermes', runtime: 'hermes', layout: undefined, user: 'memories/USER.md', soul: 'SOUL.md', memory: 'memories/MEMORY.md' },
] as const satisfies readonly { name: string; runtime: Runtime; layout: StateLayout | undefined; user: string; soul: string; memory: string }[];

const NONE = { creates: 0, updates: 0, deletes: 0 };

describe.each(CASES)('$name: the sync JSON says what changed in the principals and the identity', (c) => {
  it('USER.md edited, removed, added; SOUL.md edited; a memory-only delta; all at once', async () => {
    const sb = await makeSandbox('lineage-sync-changes-');
    cleanups.push(sb.cleanup);
    const clock = steppingClock();
    const target = localTarget(sb.dataDir, clock);
    const memory = (facts: string[]) => (c.runtime === 'hermes' ? `${facts.join('\n§\n')}\n` : `# Memory\n\n${facts.map((f, i) => `## Fact ${i}\n${f}\n`).join('\n')}`);
    if (c.runtime === 'hermes') {
      await seedStateDb(sb.workspace, [{ id: 's1', source: 'cli', title: 'Chat', started_at: 1780000000, ended_at: 1780000100 }], [
        { session_id: 's1', role: 'user', content: 'What is our gateway?', timestamp: 1780000001 },
      ]);
      await writeFiles(sb.workspace, { [c.memory]: memory(['Run tests first.']) });
    } else {
      await sb.write(c.memory, memory(['Run tests first.']));
    }
    await sb.write(c.user, 'Dana, on call Mondays.\n');
    await sb.write(c.soul, 'Calm and precise.\n');
    const sync = () => syncWorkspace({ runtime: c.runtime, workspace: sb.workspace, target, alfHome: sb.alfHome, clock, layout: c.layout });
    expect((await sync()).changes).toBeUndefined();

    await sb.write(c.user, 'Dana, on call Tuesdays.\n');
    const edited = await sync();
    expect(edited).toMatchObject({ sequence: 1, delta: true });
    expect(edited.changes).toEqual({ ...NONE, principals: { creates: 0, updates: 1, deletes: 0 } });

    await sb.remove(c.user);
    expect((await sync()).changes).toEqual({ ...NONE, principals: { creates: 0, updates: 0, deletes: 1 } });

    await sb.write(c.user, 'Dana, on call Fridays.\n');
    expect((await sync()).changes).toEqual({ ...NONE, principals: { creates: 1, updates: 0, deletes: 0 } });

    await sb.write(c.soul, 'Calm, precise and brief.\n');
    expect((await sync()).changes).toEqual({ ...NONE, identity: true });

    await sb.write(c.memory, memory(['Run tests first.', 'The gateway is 10.20.0.5.']));
    const memoryOnly = await sync();
    expect(memoryOnly).toMatchObject({ sequence: 5, delta: true, changes: { creates: 1, updates: 0, deletes: 0 } });
    expect(memoryOnly.changes).not.toHaveProperty('principals');
    expect(memoryOnly.changes).not.toHaveProperty('identity');
    expect(memoryOnly.changes).not.toHaveProperty('credentials');

    await sb.write(c.memory, memory(['Run tests first.', 'The gateway is 10.20.0.5.', 'Deploys go out on Thursdays.']));
    await sb.write(c.user, 'Dana, on call Saturdays.\n');
    await sb.write(c.soul, 'Brief.\n');
    const all = await sync();
    expect(all.changes).toEqual({ creates: 1, updates: 0, deletes: 0, principals: { creates: 0, updates: 1, deletes: 0 }, identity: true });
    // The reference's order (its struct's fields), which `JSON.stringify` keeps.
    expect(Object.keys(all.changes!)).toEqual(['creates', 'updates', 'deletes', 'principals', 'identity']);
    expect(JSON.stringify(all)).toContain('"changes":{"creates":1,"updates":0,"deletes":0,"principals":{"creates":0,"updates":1,"deletes":0},"identity":true}');

    // Idle: no `changes` at all.
    const idle = await sync();
    expect(idle).toMatchObject({ no_changes: true });
    expect(idle).not.toHaveProperty('changes');
  });
});

describe('changesOf: the layers\' entries diffed by id (CONTRACT §5)', () => {
  const id = (n: number) => `0b9c7d7e-2f6a-4d4e-8f0a-1c2d3e4f5a6${n}`;
  const human = (n: number, profile: JsonObject = { prose: { user_profile: `p${n}` } }) => ({ id: id(n), principal_type: 'human', agent_id: null, profile });
  const credential = (n: number, ciphertext: string) => ({ id: id(n), service: 'openai', encrypted_payload: ciphertext });
  const of = (layers: AlfDelta['layers'], base: AlfDelta['layers']) => changesOf({ entries: [], layers }, base);

  it('creates, updates and deletes at once, by id; order in the list does not matter', () => {
    const base = { principals: { principals: [human(1), human(2), human(3)] } };
    const next = { principals: { principals: [human(3), human(4), human(1, { prose: { user_profile: 'other' } })] } };
    expect(of(next, base)).toEqual({ ...NONE, principals: { creates: 1, updates: 1, deletes: 1 } });
  });

  it('a principal\'s top-level updated_at is not compared; its profile.updated_at is', () => {
    const base = { principals: { principals: [{ ...human(1), updated_at: '2026-11-01T09:00:00Z' }] } };
    expect(of({ principals: { principals: [{ ...human(1), updated_at: '2026-11-02T09:00:00Z' }] } }, base)).toEqual(NONE);
    const timed = (at: string) => ({ principals: { principals: [human(1, { updated_at: at })] } });
    expect(of(timed('2026-11-02T09:00:00Z'), timed('2026-11-01T09:00:00Z'))).toEqual({ ...NONE, principals: { creates: 0, updates: 1, deletes: 0 } });
  });

  it('key order inside an entry is no change', () => {
    const base = { principals: { principals: [{ profile: { a: 1, b: 2 }, id: id(1) }] } };
    expect(of({ principals: { principals: [{ id: id(1), profile: { b: 2, a: 1 } }] } }, base)).toEqual(NONE);
  });

  it('credentials are diffed the same way and compared whole; they come before the principals', () => {
    const base = { credentials: { credentials: [credential(1, 'aaa'), credential(2, 'bbb')] }, principals: { principals: [human(1)] } };
    const out = of({ credentials: { credentials: [credential(1, 'ccc')] }, principals: { principals: [] }, identity: { id: id(9) } }, base);
    expect(out).toEqual({ ...NONE, credentials: { creates: 0, updates: 1, deletes: 1 }, principals: { creates: 0, updates: 0, deletes: 1 }, identity: true });
    expect(Object.keys(out)).toEqual(['creates', 'updates', 'deletes', 'credentials', 'principals', 'identity']);
    // Whole: a credential's own updated_at counts.
    const dated = (at: string) => ({ credentials: { credentials: [{ ...credential(1, 'aaa'), updated_at: at }] } });
    expect(of(dated('2026-11-02T09:00:00Z'), dated('2026-11-01T09:00:00Z'))).toEqual({ ...NONE, credentials: { creates: 0, updates: 1, deletes: 0 } });
  });

  it('a base without the document: every entry a create; a delta without it: nothing said of it', () => {
    expect(of({ principals: { principals: [human(1), human(2)] } }, {})).toEqual({ ...NONE, principals: { creates: 2, updates: 0, deletes: 0 } });
    expect(of({}, { principals: { principals: [human(1)] }, credentials: { credentials: [credential(1, 'a')] } })).toEqual(NONE);
  });

  it('entries without a string id stand for themselves', () => {
    const base = { principals: { principals: [{ principal_type: 'human' }, 'odd'] } };
    expect(of({ principals: { principals: [{ principal_type: 'human' }, 'odd'] } }, base)).toEqual(NONE);
    expect(of({ principals: { principals: [{ principal_type: 'agent' }] } }, base)).toEqual({ ...NONE, principals: { creates: 1, updates: 0, deletes: 2 } });
  });
});
