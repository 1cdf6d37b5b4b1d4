import { mkdir, realpath, writeFile } from 'node:fs/promises';
import path from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { hermesSessionId, identityId, principalId, workspaceAgentId } from '@/lib/core/ids';
import { canonicalJson } from '@/lib/core/json';
import { hermesAdapter } from './index';
import { readSnapshot, writeSnapshot } from '@/lib/core/archive';
import { dumpTable, fixedClock, insert, seedStateDb, snapshotOf, tempDir, writeFiles } from './test-support';

const T0 = 1767268800.25; // 2026-01-01T12:00:00.25Z

async function home(): Promise<string> {
  const dir = await tempDir('hermes');
  await seedStateDb(
    dir,
    [
      { id: '20260101_120000_aa', source: 'cli', title: 'Fix the build', started_at: T0, ended_at: T0 + 60, model: 'm1' },
      { id: '20260102_090000_bb', source: 'telegram', started_at: T0 + 86400 },
    ],
    [
      { session_id: '20260101_120000_aa', role: 'user', content: 'the build is red', timestamp: T0 + 1 },
      { session_id: '20260101_120000_aa', role: 'assistant', content: '', tool_calls: '[{"id":"c1","function":{"name":"terminal"}}]', timestamp: T0 + 2 },
      { session_id: '20260101_120000_aa', role: 'tool', content: 'ok', tool_name: 'terminal', timestamp: T0 + 3 },
      { session_id: '20260102_090000_bb', role: 'user', content: 'hi', timestamp: T0 + 86401 },
    ],
  );
  await writeFiles(dir, {
    'memories/MEMORY.md': 'Same note.\n§\nAlways run tests.\n§\nSame note.',
    'memories/USER.md': 'Name: Ada\n§\nLikes tea',
    'SOUL.md': '# Soul\nCalm.\n',
    'config.yaml': 'model: m1\napi_key: sk-secret\n',
    '.env': 'OPENAI_API_KEY=sk-secret\n',
    'skill-bundles/a/SKILL.md': 'skill',
    'skill-bundles/a/.env': 'SKILL_TOKEN=dotenv-secret-1\n',
    'skill-bundles/a/scripts/.env.production': 'SKILL_TOKEN=dotenv-secret-2\n',
    'cron/jobs.json': '[]',
    'cron/.env.local': 'CRON_TOKEN=dotenv-secret-3\n',
    'cron/env.md': 'not a .env file: carried',
    'memories/.env': 'MEMORY_TOKEN=dotenv-secret-4\n',
    'logs/agent.log': 'not carried',
    'memories/state.db': 'nope',
  });
  return dir;
}

const exportHome = (workspace: string, persistAgentId = false) =>
  hermesAdapter.exportWorkspace({ workspace, persistAgentId, clock: fixedClock });

describe('hermes export', () => {
  it('makes one episodic record per session with the native-derived id and a transcript', async () => {
    const result = await exportHome(await home());
    const sessions = result.records.filter((r) => r.source.origin === 'state_db');
    expect(sessions.map((r) => r.id)).toEqual([hermesSessionId('20260101_120000_aa'), hermesSessionId('20260102_090000_bb')]);
    expect(sessions[0]!.content).toBe(
      '# Fix the build\n\n_source: cli_\n\nuser: the build is red\nassistant → tool terminal\ntool: ok\ntool → tool terminal',
    );
    expect(sessions[1]!.content).toBe('# 20260102_090000_bb\n\n_source: telegram_\n\nuser: hi');
    expect(sessions[0]).toMatchObject({
      memory_type: 'episodic',
      category: 'cli',
      namespace: 'session:cli',
      tags: ['hermes', 'session', 'cli'],
      source: { runtime: 'hermes', origin: 'state_db', session_id: '20260101_120000_aa' },
      temporal: { created_at: '2026-01-01T12:00:00.250Z', observed_at: '2026-01-01T12:00:00.250Z', updated_at: '2026-01-01T12:01:00.250Z' },
    });
    expect(sessions[1]!.temporal.updated_at).toBe('2026-01-02T12:00:01.250Z');
    const raw = sessions[0]!.raw_source_format as { session: Record<string, unknown>; messages: Record<string, unknown>[] };
    expect(Object.keys(raw.session)).toHaveLength(33);
    expect(raw.messages).toHaveLength(3);
    expect(raw.messages[0]).toMatchObject({ id: 1, role: 'user', content: 'the build is red', active: 1 });
  });

  it('keeps an open session id when it gains a message, with new content', async () => {
    const dir = await home();
    const before = (await exportHome(dir)).records.find((r) => r.source.session_id === '20260102_090000_bb')!;
    const db = new Database(path.join(dir, 'state.db'));
    insert(db, 'messages', { session_id: '20260102_090000_bb', role: 'assistant', content: 'hello!', timestamp: T0 + 86402 });
    db.close();
    const after = (await exportHome(dir)).records.find((r) => r.source.session_id === '20260102_090000_bb')!;
    expect(after.id).toBe(before.id);
    expect(after.content).toBe(`${before.content}\nassistant: hello!`);
    expect(after.temporal.updated_at).toBe('2026-01-02T12:00:02.250Z');
  });

  it('carries the allowlist raw, redacted, and never .env or state.db', async () => {
    const result = await exportHome(await home());
    expect([...result.raw.keys()]).toEqual([
      '.alf-state-db-schema.json', 'SOUL.md', 'config.yaml', 'cron/env.md', 'cron/jobs.json', 'memories/MEMORY.md', 'memories/USER.md', 'skill-bundles/a/SKILL.md',
    ]);
    expect([...result.raw.keys()].filter((k) => /(^|\/)\.env(\.|$)/.test(k))).toEqual([]);
    const everything = [...result.raw.values()].map((v) => Buffer.from(v).toString()).join('\n');
    expect(everything).not.toContain('dotenv-secret');
    expect(everything).not.toContain('sk-secret');
    expect(Buffer.from(result.raw.get('config.yaml')!).toString()).toBe('model: m1\napi_key:\n');
    const sidecar = JSON.parse(Buffer.from(result.raw.get('.alf-state-db-schema.json')!).toString());
    expect(sidecar.schema_version).toBe(16);
    expect(sidecar.ddl.some((s: string) => s.includes('CREATE TABLE sessions'))).toBe(true);
    expect(sidecar.ddl.some((s: string) => s.includes('messages_fts_data'))).toBe(false);
  });

  it('is deterministic and builds identity and principal layers', async () => {
    const dir = await home();
    const one = await exportHome(dir, true);
    const two = await exportHome(dir, true);
    expect(canonicalJson({ r: one.records, l: one.layers })).toBe(canonicalJson({ r: two.records, l: two.layers }));
    expect(one.agentId).toBe(workspaceAgentId('hermes', await realpath(dir)));
    expect(one.layers.identity).toMatchObject({ id: identityId(one.agentId), version: 1, prose: { soul: '# Soul\nCalm.\n' } });
    expect(one.layers.principals).toMatchObject({
      principals: [{ id: principalId(one.agentId, 'human'), principal_type: 'human', profile: { prose: { user_profile: 'Name: Ada\n§\nLikes tea' } } }],
    });
    const curated = one.records.filter((r) => r.namespace === 'curated');
    expect(curated.map((r) => [r.content, r.memory_type])).toEqual([
      ['Same note.', 'semantic'], ['Always run tests.', 'procedural'], ['Same note.', 'semantic'],
    ]);
  });

  it('reports memory presence', async () => {
    expect(await hermesAdapter.memoryPresent(await home())).toBe(true);
    const onlySessions = await tempDir('hermes-db');
    await seedStateDb(onlySessions, [{ id: 's', source: 'cli', started_at: T0 }], []);
    expect(await hermesAdapter.memoryPresent(onlySessions)).toBe(true);
    const empty = await tempDir('hermes-empty');
    await seedStateDb(empty, [], []);
    expect(await hermesAdapter.memoryPresent(empty)).toBe(false);
    // A restore's -w of a home not made yet asks this first: it was internal_error ("ENOENT ... realpath").
    expect(await hermesAdapter.memoryPresent(path.join(empty, 'not-made-yet', '.hermes'))).toBe(false);
  });

  it('says so when state.db holds messages of a session its sessions table does not have (they have no record to travel in)', async () => {
    const dir = await home();
    const db = new Database(path.join(dir, 'state.db'));
    db.pragma('foreign_keys = OFF'); // as Hermes' Python sqlite3 connections run
    insert(db, 'messages', { session_id: 'gone_session', role: 'user', content: 'left behind', timestamp: T0 + 5 });
    insert(db, 'messages', { session_id: 'gone_session', role: 'assistant', content: 'me too', timestamp: T0 + 6 });
    db.close();
    const result = await exportHome(dir);
    expect(result.warnings).toEqual([
      'state.db: 2 messages of session "gone_session", which its sessions table does not hold, are not synced (a restore will not have them)',
    ]);
    expect((await exportHome(await home())).warnings).toEqual([]);
  });

  it('says which values a record cannot carry exactly: TEXT that is not UTF-8, an integer beyond 2^53', async () => {
    const dir = await home();
    const db = new Database(path.join(dir, 'state.db'));
    db.prepare("UPDATE messages SET content = CAST(x'41ff42' AS TEXT) WHERE id = 1").run();
    db.prepare('UPDATE messages SET token_count = ? WHERE id = 4').run(2n ** 60n + 1n);
    db.prepare("UPDATE messages SET content = 'a real \uFFFD stays quiet' WHERE id = 3").run();
    db.close();
    expect((await exportHome(dir)).warnings).toEqual([
      'messages row 1: content is TEXT that is not valid UTF-8; synced with U+FFFD for the bytes that are not, which a restore writes instead',
      'messages row 4: token_count 1152921504606846977 is beyond what a JSON number holds exactly; synced as 1152921504606847000',
    ]);
  });

  it('takes a session whose times no date holds (1e300, -1e16, text) with a warning, and a restore gives the rows back as they were', async () => {
    // Each of these failed the whole sync as internal_error ("Invalid time value").
    const dir = await tempDir('hermes-times');
    await seedStateDb(dir, [
      { id: 'far', source: 'cli', started_at: 1e300 },
      { id: 'before', source: 'cli', started_at: -1e16 },
      { id: 'ended', source: 'cli', started_at: T0, ended_at: 9e15 },
      { id: 'words', source: 'cli', started_at: 'yesterday' as unknown as number },
      { id: 'ok', source: 'cli', started_at: T0 },
    ], [
      { session_id: 'words', role: 'user', content: 'hi', timestamp: 1e20 },
      { session_id: 'ok', role: 'user', content: 'hi', timestamp: T0 + 1 },
    ]);
    const result = await exportHome(dir);
    const byId = new Map(result.records.map((r) => [r.source.session_id, r.temporal]));
    expect(byId.get('far')).toEqual({ created_at: '2026-03-01T00:00:00.000Z', observed_at: '2026-03-01T00:00:00.000Z' });
    expect(byId.get('ended')).toEqual({ created_at: '2026-01-01T12:00:00.250Z', observed_at: '2026-01-01T12:00:00.250Z' });
    expect(byId.get('ok')?.updated_at).toBe('2026-01-01T12:00:01.250Z');
    expect(result.warnings).toEqual([
      'state.db: session "before": started_at -10000000000000000 is not unix seconds of a date (years 0 to 9999); using the export time (the row keeps its value)',
      'state.db: session "ended": its last activity (ended_at) 9000000000000000 is not unix seconds of a date (years 0 to 9999); the record has no updated_at (the row keeps its value)',
      'state.db: session "far": started_at 1e+300 is not unix seconds of a date (years 0 to 9999); using the export time (the row keeps its value)',
      'state.db: session "words": started_at "yesterday" is not unix seconds of a date (years 0 to 9999); using the export time (the row keeps its value)',
      'state.db: session "words": its last activity (newest message timestamp) 100000000000000000000 is not unix seconds of a date (years 0 to 9999); the record has no updated_at (the row keeps its value)',
    ]);
    const out = await tempDir('hermes-times-out');
    await hermesAdapter.importSnapshot({ snapshot: await readSnapshot(await writeSnapshot(snapshotOf(result))), target: out, live: false, clock: fixedClock });
    for (const table of ['sessions', 'messages']) {
      expect(dumpTable(path.join(out, 'state.db'), table)).toEqual(dumpTable(path.join(dir, 'state.db'), table));
    }
  });

  it('names the two sessions whose ids make one record id (an id twice, NULL beside null), instead of an archive refused as malformed', async () => {
    for (const [first, second] of [['s1', 's1'], [null, 'null'], [5, '5']] as const) {
      const dir = await tempDir('hermes-dup');
      const db = new Database(path.join(dir, 'state.db'));
      db.exec('CREATE TABLE sessions (id, source TEXT, started_at REAL)');
      db.prepare('INSERT INTO sessions VALUES (?, ?, ?)').run(first, 'cli', T0);
      db.prepare('INSERT INTO sessions VALUES (?, ?, ?)').run(second, 'cli', T0 + 1);
      db.close();
      const error = await exportHome(dir).catch((e: unknown) => e);
      expect(error).toMatchObject({
        code: 'bad_store',
        message: expect.stringMatching(new RegExp(`^state\\.db: the sessions with id ${JSON.stringify(first)} and id ${JSON.stringify(second)} make the same record id [0-9a-f-]{36}, so they cannot be synced as two sessions$`)),
        hint: 'give each session its own text id (Hermes keeps them unique), then sync again (nothing was uploaded)',
      });
    }
  });

  it('redacts a config.yaml that is not UTF-8 and keeps its other bytes as they were (they became U+FFFD)', async () => {
    const dir = await tempDir('hermes-config');
    const odd = Buffer.from([0x6e, 0x61, 0x6d, 0x65, 0x3a, 0x20, 0xff, 0xfe, 0xe9]); // "name: " then bytes that are not UTF-8
    await writeFiles(dir, { 'SOUL.md': '# Soul\n' });
    await writeFile(path.join(dir, 'config.yaml'), Buffer.concat([Buffer.from('model: m1\napi_key: sk-secret\n'), odd, Buffer.from('\n')]));
    const raw = (await exportHome(dir)).raw.get('config.yaml')!;
    expect(Buffer.from(raw)).toEqual(Buffer.concat([Buffer.from('model: m1\napi_key:\n'), odd, Buffer.from('\n')]));
  });

  it('says which memory files are not UTF-8 (their records hold U+FFFD), and carries them as they are', async () => {
    const dir = await tempDir('hermes-not-utf8');
    await writeFiles(dir, { 'SOUL.md': '# Soul\n' });
    await mkdir(path.join(dir, 'memories'));
    const memory = Buffer.from([0x61, 0xff, 0x0a, 0xc2, 0xa7, 0x0a, 0x62]);
    await writeFile(path.join(dir, 'memories', 'MEMORY.md'), memory);
    await writeFile(path.join(dir, 'memories', 'USER.md'), Buffer.from([0xfe, 0x41]));
    const result = await exportHome(dir);
    expect(result.warnings).toEqual([
      'memories/MEMORY.md is not UTF-8: its records and layers hold U+FFFD for the bytes that are not (the file itself is carried and restored as it is)',
      'memories/USER.md is not UTF-8: its records and layers hold U+FFFD for the bytes that are not (the file itself is carried and restored as it is)',
    ]);
    expect(Buffer.from(result.raw.get('memories/MEMORY.md')!)).toEqual(memory);
  });
});
