/**
 * A memory whose record is longer than an archive reader takes for one line (16 MiB) is refused by
 * the sync itself, before anything is uploaded or written, naming the workspace file and lines —
 * not the archive's `memory/2026-Q4.jsonl line 1`, which no workspace holds. A first sync and a
 * delta alike; one just under the limit syncs.
 */
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { insert, seedStateDb } from '@/lib/adapters/hermes/test-support';
import { listEntries, openLedger } from '@/lib/ledger';
import { localTarget } from './local-target';
import { MAX_RECORD_LINE_BYTES, TOO_LARGE_HINT } from './record-size';
import { syncWorkspace } from './sync';
import { storedState, syncRefusal } from './testing/refusals';
import { makeSandbox, steppingClock } from './testing/workspace';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const fn of cleanups.splice(0)) await fn();
});

/** A MEMORY.md whose `## Huge` section (lines 5-6) holds one line of `size` ASCII characters: its record's line is that and ~1 KB more. */
const memoryWith = (size: number) => `# Memory\n\n## Owner\nDana owns billing.\n## Huge\n${'x'.repeat(size)}\n`;

const PLACE = /\(the record's id [0-9a-f-]{36}, file "MEMORY\.md" lines 5-6\)$/;

describe('a memory too large to sync', () => {
  it('OpenClaw first sync: refused naming MEMORY.md and the section\'s lines, before anything is uploaded or written; just under the limit syncs', async () => {
    const sb = await makeSandbox();
    cleanups.push(sb.cleanup);
    const clock = steppingClock();
    const sync = () => syncWorkspace({ runtime: 'openclaw', workspace: sb.workspace, target: localTarget(sb.dataDir, clock), alfHome: path.join(sb.alfHome, '.alf'), clock });
    await sb.write('MEMORY.md', memoryWith(MAX_RECORD_LINE_BYTES + 1));

    const error = await syncRefusal(sync);
    expect(error.code).toBe('sync_upload_failed');
    expect(error.message).toMatch(/^a memory is too large to sync: its record is \d+ bytes of JSON, more than the 16777216 bytes \(16 MiB\) an archive reader takes for one record /);
    expect(error.message).toMatch(PLACE);
    expect(error.message).not.toContain('memory/2026-Q');
    expect(error.hint).toBe(TOO_LARGE_HINT);
    const agentId = fs.readFileSync(path.join(sb.workspace, '.alf-agent-id'), 'utf8').trim();
    expect(storedState(sb.dataDir, sb.alfHome, agentId)).toBe(JSON.stringify({ entries: [], files: [] }));
    // Nor the workspace's record of an upload sent (.alf-synced.json / the sent marker).
    expect(fs.readdirSync(sb.workspace).sort()).toEqual(['.alf-agent-id', 'MEMORY.md']);

    // The record's line is the content and its fields (~1 KB): 4 KiB under the limit is under it.
    await sb.write('MEMORY.md', memoryWith(MAX_RECORD_LINE_BYTES - 4096));
    expect(await sync()).toMatchObject({ ok: true, sequence: 0, delta: false });
  }, 120_000);

  it('OpenClaw delta: a section grown past the limit is refused the same way, nothing stored; split, it syncs', async () => {
    const sb = await makeSandbox();
    cleanups.push(sb.cleanup);
    const clock = steppingClock();
    const sync = () => syncWorkspace({ runtime: 'openclaw', workspace: sb.workspace, target: localTarget(sb.dataDir, clock), alfHome: path.join(sb.alfHome, '.alf'), clock });
    await sb.write('MEMORY.md', memoryWith(10));
    expect((await sync()).sequence).toBe(0);
    const agentId = fs.readFileSync(path.join(sb.workspace, '.alf-agent-id'), 'utf8').trim();
    const before = storedState(sb.dataDir, sb.alfHome, agentId);
    const marker = fs.readFileSync(path.join(sb.workspace, '.alf-synced.json'));

    await sb.write('MEMORY.md', memoryWith(MAX_RECORD_LINE_BYTES + 1));
    const error = await syncRefusal(sync);
    expect(error.code).toBe('sync_upload_failed');
    expect(error.message).toMatch(/^a memory is too large to sync: its record is \d+ bytes of JSON, more than the 16777216 bytes/);
    expect(error.message).toMatch(PLACE);
    expect(error.hint).toBe(TOO_LARGE_HINT);
    expect(storedState(sb.dataDir, sb.alfHome, agentId)).toBe(before);
    expect(fs.readFileSync(path.join(sb.workspace, '.alf-synced.json'))).toEqual(marker);

    const half = 'x'.repeat(MAX_RECORD_LINE_BYTES / 2);
    await sb.write('MEMORY.md', `# Memory\n\n## Owner\nDana owns billing.\n## Huge\n${half}\n## Huge, continued\n${half}\n`);
    expect(await sync()).toMatchObject({ ok: true, sequence: 1, delta: true });
  }, 120_000);

  it('Hermes: a session too large is refused naming the session, a first sync (its records without lines) and a delta alike', async () => {
    const sb = await makeSandbox('lineage-hermes-');
    cleanups.push(sb.cleanup);
    const clock = steppingClock();
    const alfHome = path.join(sb.alfHome, '.alf');
    const sync = () => syncWorkspace({ runtime: 'hermes', workspace: sb.workspace, target: localTarget(sb.dataDir, clock), alfHome, clock });
    await seedStateDb(sb.workspace, [
      { id: 'sess-small', source: 'cli', title: 'Small', started_at: 1780000000, ended_at: 1780000600 },
      { id: 'sess-huge', source: 'cli', title: 'Huge', started_at: 1780001000 },
    ], [
      { session_id: 'sess-small', role: 'user', content: 'Review the deploy', timestamp: 1780000010 },
      { session_id: 'sess-huge', role: 'user', content: 'x'.repeat(MAX_RECORD_LINE_BYTES + 1), timestamp: 1780001010 },
    ]);
    const SESSION = /\(the record's id [0-9a-f-]{36}, session "sess-huge"\)$/;
    const first = await syncRefusal(sync);
    expect(first.code).toBe('sync_upload_failed');
    expect(first.message).toMatch(/^a memory is too large to sync: its record is \d+ bytes of JSON, more than the 16777216 bytes/);
    expect(first.message).toMatch(SESSION);
    expect(first.hint).toBe(TOO_LARGE_HINT);
    expect(fs.existsSync(path.join(alfHome, 'state'))).toBe(false);

    const db = new Database(path.join(sb.workspace, 'state.db'));
    db.prepare("UPDATE messages SET content = 'short now' WHERE session_id = 'sess-huge'").run();
    db.close();
    const synced = await sync();
    // The refused first snapshot was never stored: this is the agent's first entry.
    expect(synced).toMatchObject({ ok: true, sequence: 0, delta: false });
    const agentId = synced.agent.alf_agent_id;
    expect(listEntries({ ledger: openLedger(sb.dataDir), agentId })).toHaveLength(1);
    const before = storedState(sb.dataDir, sb.alfHome, agentId);

    const again = new Database(path.join(sb.workspace, 'state.db'));
    insert(again, 'messages', { session_id: 'sess-huge', role: 'assistant', content: 'y'.repeat(MAX_RECORD_LINE_BYTES + 1), timestamp: 1780001020 });
    again.close();
    const later = await syncRefusal(sync);
    expect(later.message).toMatch(/^a memory is too large to sync: /);
    expect(later.message).toMatch(SESSION);
    expect(storedState(sb.dataDir, sb.alfHome, agentId)).toBe(before);
    expect(JSON.parse(before).files.length).toBeGreaterThan(0);
  }, 120_000);
});
