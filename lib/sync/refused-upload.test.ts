/**
 * A memory the ledger cannot store (a NUL character: no PostgreSQL text holds one) makes its
 * upload refused whole. The refusal must say where that memory is in the workspace — a file and
 * its lines, a ZeroClaw key — not only "record 2", and that nothing was stored; the next sync
 * after the fix goes through as if the refused one had never run.
 */
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { seedBrainDb } from '@/lib/adapters/zeroclaw/test-support';
import { startTestServer } from '@/tests/server/harness';
import { REFUSED_UPLOAD_HINT } from './errors';
import { httpTarget } from './http-target';
import { localTarget } from './local-target';
import type { SyncTarget } from './target';
import { syncWorkspace } from './sync';
import { storedState, syncRefusal } from './testing/refusals';
import { makeSandbox, steppingClock } from './testing/workspace';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const fn of cleanups.splice(0)) await fn();
});

describe('an upload refused for a memory the ledger cannot hold', () => {
  it('OpenClaw: says the file and lines, and stores nothing; the first sync and a later delta alike', async () => {
    const sb = await makeSandbox();
    cleanups.push(sb.cleanup);
    const clock = steppingClock();
    const target = localTarget(sb.dataDir, clock);
    const sync = () => syncWorkspace({ runtime: 'openclaw', workspace: sb.workspace, target, alfHome: path.join(sb.alfHome, '.alf'), clock });
    await sb.write('MEMORY.md', '# Memory\n\n## Owner\nDana owns billing.\n');
    await sb.write('memory/notes.md', '## Build\nmake all\n\n## Paste\ncopied \u0000 from a terminal\n');

    const first = await syncRefusal(sync);
    expect(first.code).toBe('sync_upload_failed');
    expect(first.message).toMatch(/content holds a NUL character \(U\+0000\), which a memory may not contain \(the record's id [0-9a-f-]{36}, file "memory\/notes\.md" lines 1-5\)$/);
    expect(first.hint).toBe(REFUSED_UPLOAD_HINT);
    const agentId = fs.readFileSync(path.join(sb.workspace, '.alf-agent-id'), 'utf8').trim();
    expect(storedState(sb.dataDir, sb.alfHome, agentId)).toBe(JSON.stringify({ entries: [], files: [] }));

    await sb.write('memory/notes.md', '## Build\nmake all\n\n## Paste\ncopied from a terminal\n');
    expect((await sync()).sequence).toBe(0);
    const before = storedState(sb.dataDir, sb.alfHome, agentId);
    await sb.write('memory/2026-11-02.md', '## Standup\nshipped \u0000\n');
    const later = await syncRefusal(sync);
    expect(later.message).toMatch(/^refused: memory\/delta\.jsonl entry 1: content holds a NUL character .*file "memory\/2026-11-02\.md" lines 1-2\)$/);
    expect(later.hint).toBe(REFUSED_UPLOAD_HINT);
    expect(storedState(sb.dataDir, sb.alfHome, agentId)).toBe(before);

    await sb.write('memory/2026-11-02.md', '## Standup\nshipped\n');
    expect(await sync()).toMatchObject({ sequence: 1, changes: { creates: 1, updates: 0, deletes: 0 } });
  });

  it('OpenClaw, a first sync large enough to be checked as written (its fold deferred): each record checked once, with its line, and that verdict taken; a refused one named as before, nothing stored', async () => {
    const sb = await makeSandbox();
    cleanups.push(sb.cleanup);
    const clock = steppingClock();
    const local = localTarget(sb.dataDir, clock);
    // What the sync hands the target: checks made for the records, and whether they cover the snapshot written.
    const handed: (boolean | null)[] = [];
    const target: SyncTarget = {
      ...local,
      putSnapshot: (agentId, bytes, written, checked) => {
        handed.push(checked && written ? checked.covers(written.source) : null);
        return local.putSnapshot(agentId, bytes, written, checked);
      },
    };
    const sync = () => syncWorkspace({ runtime: 'openclaw', workspace: sb.workspace, target, alfHome: path.join(sb.alfHome, '.alf'), clock });
    const sections = (from: number, to: number) => Array.from({ length: to - from }, (_, i) => `## Note ${from + i}\nfact ${from + i}\n`).join('\n');
    await sb.write('memory/2026-11-01.md', sections(0, 200));
    await sb.write('memory/2026-11-02.md', `${sections(200, 300)}\n## Paste\ncopied \u0000 from a terminal\n`);
    const first = await syncRefusal(sync);
    expect(first.message).toMatch(/^refused: record 301: content holds a NUL character \(U\+0000\), which a memory may not contain \(the record's id [0-9a-f-]{36}, file "memory\/2026-11-02\.md" lines 301-302\)$/);
    // Refused on that verdict before the agent is registered: nothing was handed to the target.
    expect(handed).toEqual([]);
    const agentId = fs.readFileSync(path.join(sb.workspace, '.alf-agent-id'), 'utf8').trim();
    expect(storedState(sb.dataDir, sb.alfHome, agentId)).toBe(JSON.stringify({ entries: [], files: [] }));

    await sb.write('memory/2026-11-02.md', sections(200, 300));
    expect((await sync()).sequence).toBe(0);
    expect(handed).toEqual([true]);
  });

  it('through a server: a first sync is refused before anything is sent, as a local one; a delta, by the server\'s 400, which says the same, and the client gives the same hint', async () => {
    const server = await startTestServer();
    cleanups.push(server.close);
    const sb = await makeSandbox();
    cleanups.push(sb.cleanup);
    const clock = steppingClock();
    const target = httpTarget({ baseUrl: server.url, apiKey: server.keyA });
    const sync = () => syncWorkspace({ runtime: 'openclaw', workspace: sb.workspace, target, alfHome: path.join(sb.alfHome, '.alf'), clock });
    await sb.write('MEMORY.md', '# Memory\n\n## Owner\nDana \u0000 owns billing.\n');
    const first = await syncRefusal(sync);
    expect(first.code).toBe('sync_upload_failed');
    expect(first.message).toMatch(/^refused: record 1: content holds a NUL character .*file "MEMORY\.md" lines 3-4\)$/);
    expect(first.hint).toBe(REFUSED_UPLOAD_HINT);

    await sb.write('MEMORY.md', '# Memory\n\n## Owner\nDana owns billing.\n');
    expect((await sync()).sequence).toBe(0);
    await sb.write('MEMORY.md', '# Memory\n\n## Owner\nDana \u0000 owns billing.\n');
    const error = await syncRefusal(sync);
    expect(error.code).toBe('sync_upload_failed');
    expect(error.message).toMatch(/HTTP 400.*content holds a NUL character .*file "MEMORY\.md" lines 3-4\)$/);
    expect(error.hint).toBe(REFUSED_UPLOAD_HINT);
  });

  it('ZeroClaw: says the memory key', async () => {
    const sb = await makeSandbox('lineage-zc-');
    cleanups.push(sb.cleanup);
    const agent = 'aaaaaaaa-0000-4000-8000-00000000000a';
    const db = await seedBrainDb({
      workspace: sb.workspace, agents: [{ id: agent, alias: 'scout', created_at: '2026-05-01T00:00:00Z' }],
      rows: [{ id: '10000000-0000-4000-8000-000000000001', key: 'gateway', content: 'The gateway is 10.20.0.5', agent_id: agent, created_at: '2026-05-01T10:00:00Z', updated_at: '2026-05-01T10:00:00Z' }],
    });
    const clock = steppingClock();
    const sync = () => syncWorkspace({ runtime: 'zeroclaw', workspace: sb.workspace, runtimeAgent: 'scout', target: localTarget(sb.dataDir, clock), alfHome: path.join(sb.alfHome, '.alf'), clock });
    expect((await sync()).sequence).toBe(0);
    const open = new Database(db);
    open.prepare('UPDATE memories SET content = ? WHERE key = ?').run('The gateway is \u0000', 'gateway');
    open.close();
    const error = await syncRefusal(sync);
    expect(error.message).toMatch(/content holds a NUL character .*\(the record's id 10000000-0000-4000-8000-000000000001, key "gateway"\)$/);
    expect(error.hint).toBe(REFUSED_UPLOAD_HINT);
  });
});
