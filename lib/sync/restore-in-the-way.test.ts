/**
 * A restore into a live workspace writes only inside it, and decides before its first write.
 * - A symbolic link on the way of a file it writes is followed when it stays inside the workspace
 *   (as a sync follows it), and refused when it leads out of it or to nothing: the restore would
 *   otherwise write somewhere else on the machine.
 * - ZeroClaw and Hermes restores write their database before the raw files: whatever is in the way
 *   of a raw file must refuse the restore before the database changes too.
 */
import { execFileSync, spawn } from 'node:child_process';
import { once } from 'node:events';
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it, type TestContext } from 'vitest';
import { seedStateDb, writeFiles } from '@/lib/adapters/hermes/test-support';
import { AdapterError } from '@/lib/adapters/shared/errors';
import { seedBrainDb } from '@/lib/adapters/zeroclaw/test-support';
import { localTarget } from './local-target';
import { restoreAgent } from './restore';
import { syncWorkspace } from './sync';
import { makeSandbox, readTree, steppingClock } from './testing/workspace';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const fn of cleanups.splice(0)) await fn();
});

async function sandbox() {
  const sb = await makeSandbox('lineage-restore-way-');
  cleanups.push(sb.cleanup);
  const clock = steppingClock();
  return { sb, clock, target: localTarget(sb.dataDir, clock) };
}

/** Every path under `dir` with its type, size and (for links) target: what "nothing changed" compares. */
function tree(dir: string): string {
  return execFileSync('find', [dir, '-printf', '%p %y %s %l\n']).toString().split('\n').sort().join('\n');
}

async function refusal(run: () => Promise<unknown>): Promise<AdapterError> {
  const error = await run().then(() => null, (e: unknown) => e);
  expect(error).toBeInstanceOf(AdapterError);
  return error as AdapterError;
}

describe('OpenClaw: symbolic links in a live workspace', () => {
  async function syncedOpenclaw() {
    const { sb, clock, target } = await sandbox();
    await sb.write('MEMORY.md', '# Memory\n\n## Owner\nDana owns billing.\n');
    await sb.write('memory/notes.md', '## Build\nmake all\n');
    const { agent } = await syncWorkspace({ runtime: 'openclaw', workspace: sb.workspace, target, alfHome: sb.alfHome, clock });
    const live = path.join(sb.root, 'live');
    const outside = path.join(sb.root, 'outside');
    fs.mkdirSync(live);
    fs.mkdirSync(outside);
    fs.writeFileSync(path.join(outside, 'notes.md'), 'not the workspace\'s\n');
    fs.writeFileSync(path.join(outside, 'MEMORY.md'), 'not the workspace\'s either\n');
    const restore = () => restoreAgent({ runtime: 'openclaw', agentId: agent.alf_agent_id, target, alfHome: sb.alfHome, workspace: live, clock, replace: true });
    return { sb, live, outside, restore };
  }

  it.each([
    ['a directory', 'memory', (outside: string) => outside],
    ['a file', 'MEMORY.md', (outside: string) => path.join(outside, 'MEMORY.md')],
  ])('a link to %s outside the workspace: refused, nothing written on either side', async (_kind, rel, to) => {
    const { live, outside, restore } = await syncedOpenclaw();
    fs.symlinkSync(to(outside), path.join(live, rel));
    const before = [tree(live), tree(outside)];
    const error = await refusal(restore);
    expect(error).toMatchObject({
      code: 'workspace_file_invalid',
      message: `cannot restore into ${live}: ${rel} is a symbolic link to ${to(outside)}, outside the workspace, and a restore writes only inside it`,
    });
    expect(error.hint).toBe(`replace the link ${path.join(live, rel)} with what it stands for, or restore into a new directory with --out (nothing was written)`);
    expect([tree(live), tree(outside)]).toEqual(before);
  });

  it('a link to nothing: refused, nothing written (a write through it would create its target)', async () => {
    const { live, outside, restore } = await syncedOpenclaw();
    fs.symlinkSync(path.join(outside, 'gone', 'MEMORY.md'), path.join(live, 'MEMORY.md'));
    const before = [tree(live), tree(outside)];
    expect(await refusal(restore)).toMatchObject({ code: 'workspace_file_invalid', message: `cannot restore into ${live}: MEMORY.md is a symbolic link to a path that does not exist` });
    expect([tree(live), tree(outside)]).toEqual(before);
  });

  it.each([
    ['MEMORY.md -> MEMORY.md', 'MEMORY.md', 'MEMORY.md'],
    ['memory -> memory (a directory the restore writes into)', 'memory', 'memory'],
  ])('a loop of links, %s: refused saying it is a loop, not a path that does not exist, nothing written', async (_case, rel, to) => {
    const { live, outside, restore } = await syncedOpenclaw();
    fs.symlinkSync(to, path.join(live, rel));
    const before = [tree(live), tree(outside)];
    expect(await refusal(restore)).toMatchObject({ code: 'workspace_file_invalid', message: `cannot restore into ${live}: ${rel} is a symbolic link that leads back to itself (a loop of symbolic links)` });
    expect([tree(live), tree(outside)]).toEqual(before);
  });

  it('a link that stays inside the workspace is followed, as a sync follows it', async () => {
    const { live, restore } = await syncedOpenclaw();
    fs.mkdirSync(path.join(live, 'kept'));
    fs.symlinkSync(path.join(live, 'kept'), path.join(live, 'memory'));
    expect(await restore()).toMatchObject({ applied: true });
    expect(fs.readFileSync(path.join(live, 'kept', 'notes.md'), 'utf8')).toBe('## Build\nmake all\n');
    expect(fs.lstatSync(path.join(live, 'memory')).isSymbolicLink()).toBe(true);
  });
});

/**
 * A ZeroClaw workspace synced at two sequences: its agent's `gateway` row and `file` at 0; the row
 * changed, and whatever `between` does to the workspace, at 1. `restore` puts sequence 0 back into
 * the live workspace (replace); `gateway` reads the row's content as brain.db holds it now.
 */
async function zeroclawAtTwoSequences(file: string, content: string, between: (workspace: string) => void = () => undefined) {
  const { sb, clock, target } = await sandbox();
  const A = 'aaaaaaaa-0000-4000-8000-00000000000a';
  const dbPath = await seedBrainDb({
    workspace: sb.workspace,
    agents: [{ id: A, alias: 'scout', created_at: '2026-05-01T00:00:00Z' }],
    rows: [{ id: '10000000-0000-4000-8000-000000000001', key: 'gateway', content: 'The gateway is 10.20.0.5', agent_id: A, created_at: '2026-05-01T10:00:00Z', updated_at: '2026-05-01T10:00:00Z' }],
  });
  await sb.write(file, content);
  const sync = () => syncWorkspace({ runtime: 'zeroclaw', workspace: sb.workspace, runtimeAgent: 'scout', target, alfHome: sb.alfHome, clock });
  const { agent } = await sync();
  const db = new Database(dbPath);
  db.prepare("UPDATE memories SET content = 'The gateway moved to 10.20.0.9' WHERE key = 'gateway'").run();
  db.close();
  between(sb.workspace);
  expect((await sync()).sequence).toBe(1);
  const restore = () => restoreAgent({ runtime: 'zeroclaw', agentId: agent.alf_agent_id, target, alfHome: sb.alfHome, workspace: sb.workspace, runtimeAgent: 'scout', atSequence: 0, clock, replace: true });
  const gateway = () => {
    const after = new Database(dbPath, { readonly: true });
    try {
      return after.prepare("SELECT content FROM memories WHERE key = 'gateway'").pluck().get();
    } finally {
      after.close();
    }
  };
  return { sb, dbPath, restore, gateway };
}

describe('ZeroClaw and Hermes: refused before the database changes', () => {
  it('ZeroClaw: a raw file with a directory in its way leaves brain.db as it was', async () => {
    const { sb, dbPath, restore, gateway } = await zeroclawAtTwoSequences('memory/notes/guide.md', 'Read me first.\n');
    fs.rmSync(path.join(sb.workspace, 'memory', 'notes'), { recursive: true });
    fs.writeFileSync(path.join(sb.workspace, 'memory', 'notes'), 'a file where the restore needs a directory');
    const before = tree(sb.workspace);

    const error = await refusal(restore);
    expect(error).toMatchObject({ code: 'workspace_file_invalid', message: `cannot restore into ${sb.workspace}: memory/notes is a file there, where the restore writes a directory` });
    expect(gateway()).toBe('The gateway moved to 10.20.0.9');
    expect(tree(sb.workspace)).toBe(before);
  });

  async function syncedHermes() {
    const { sb, clock, target } = await sandbox();
    await seedStateDb(sb.workspace, [{ id: 'sess-1', source: 'cli', title: 'Deploy review', started_at: 1780000000, ended_at: 1780000600 }], [
      { session_id: 'sess-1', role: 'user', content: 'Review the deploy', timestamp: 1780000010 },
    ]);
    await writeFiles(sb.workspace, { 'memories/MEMORY.md': 'Always run tests first.\n', 'memories/USER.md': 'Name: Dana\n' });
    const sync = () => syncWorkspace({ runtime: 'hermes', workspace: sb.workspace, target, alfHome: sb.alfHome, clock });
    const { agent } = await sync();
    const db = new Database(path.join(sb.workspace, 'state.db'));
    db.prepare("UPDATE sessions SET title = 'Renamed here' WHERE id = 'sess-1'").run();
    db.close();
    expect((await sync()).sequence).toBe(1);
    // Back to the first sequence: a prompt-update of the live home, replaced.
    const restore = () => restoreAgent({ runtime: 'hermes', agentId: agent.alf_agent_id, target, alfHome: sb.alfHome, workspace: sb.workspace, atSequence: 0, clock, replace: true });
    return { sb, restore };
  }

  it('Hermes: a raw file with a directory in its way leaves state.db as it was', async () => {
    const { sb, restore } = await syncedHermes();
    const dbPath = path.join(sb.workspace, 'state.db');
    fs.rmSync(path.join(sb.workspace, 'memories', 'USER.md'));
    fs.mkdirSync(path.join(sb.workspace, 'memories', 'USER.md', 'inside'), { recursive: true });
    const before = tree(sb.workspace);

    const error = await refusal(restore);
    expect(error).toMatchObject({ code: 'workspace_file_invalid', message: `cannot restore into ${sb.workspace}: memories/USER.md is a directory there, where the restore writes a file` });
    const after = new Database(dbPath, { readonly: true });
    expect(after.prepare("SELECT title FROM sessions WHERE id = 'sess-1'").pluck().get()).toBe('Renamed here');
    after.close();
    expect(tree(sb.workspace)).toBe(before);
  });

  it('Hermes: a state.db that links out of the home is not written (its sync does not read it either)', async () => {
    const { sb, restore } = await syncedHermes();
    const elsewhere = path.join(sb.root, 'elsewhere.db');
    fs.renameSync(path.join(sb.workspace, 'state.db'), elsewhere);
    fs.symlinkSync(elsewhere, path.join(sb.workspace, 'state.db'));
    const bytes = fs.readFileSync(elsewhere);
    const error = await refusal(restore);
    expect(error).toMatchObject({ code: 'workspace_file_invalid', message: `cannot restore into ${sb.workspace}: state.db is a symbolic link to ${elsewhere}, outside the workspace, and a restore writes only inside it` });
    expect(fs.readFileSync(elsewhere).equals(bytes)).toBe(true);
  });
});

/**
 * Makes a file or directory unwritable until the test ends: mode 0444/0555 for a user, the
 * immutable attribute for root (whom no mode bit stops); skips the test where neither can be set.
 */
function unwritable(ctx: TestContext, file: string): void {
  if (process.getuid?.() !== 0) {
    const mode = fs.statSync(file).mode;
    fs.chmodSync(file, fs.statSync(file).isDirectory() ? 0o555 : 0o444);
    cleanups.unshift(async () => fs.chmodSync(file, mode));
    return;
  }
  try {
    execFileSync('chattr', ['+i', file], { stdio: 'ignore' });
  } catch {
    ctx.skip();
  }
  cleanups.unshift(async () => void execFileSync('chattr', ['-i', file]));
}

describe('a file or directory the restore cannot write: refused before the first write', () => {
  it('OpenClaw: a read-only memory file leaves every file of the workspace as it was', async (ctx) => {
    const { sb, clock, target } = await sandbox();
    await sb.write('MEMORY.md', '## Owner\nDana owns billing.\n');
    await sb.write('memory/a.md', 'first a\n');
    await sb.write('memory/z.md', 'first z\n');
    const sync = () => syncWorkspace({ runtime: 'openclaw', workspace: sb.workspace, target, alfHome: sb.alfHome, clock });
    const { agent } = await sync();
    await sb.write('MEMORY.md', '## Owner\nLee owns billing.\n');
    await sb.write('memory/a.md', 'second a\n');
    await sb.write('memory/z.md', 'second z\n');
    expect((await sync()).sequence).toBe(1);
    unwritable(ctx, path.join(sb.workspace, 'memory', 'z.md'));
    const before = await readTree(sb.workspace, []);

    const error = await refusal(() => restoreAgent({ runtime: 'openclaw', agentId: agent.alf_agent_id, target, alfHome: sb.alfHome, workspace: sb.workspace, atSequence: 0, clock, replace: true }));
    expect(error).toMatchObject({ code: 'workspace_file_invalid', message: expect.stringMatching(new RegExp(`^cannot restore into ${sb.workspace}: memory/z\\.md cannot be written \\((EPERM|EACCES)\\)$`)) });
    expect(error.hint).toBe(`make ${path.join(sb.workspace, 'memory', 'z.md')} writable (chmod u+w, or chattr -i if it is immutable), then restore again (nothing was written)`);
    expect(await readTree(sb.workspace, [])).toEqual(before);
  });

  it('OpenClaw: a read-only directory whose files the restore replaces (they are staged there, then renamed) leaves every file as it was', async (ctx) => {
    const { sb, clock, target } = await sandbox();
    await sb.write('memory/a.md', 'first a\n');
    const sync = () => syncWorkspace({ runtime: 'openclaw', workspace: sb.workspace, target, alfHome: sb.alfHome, clock });
    const { agent } = await sync();
    await sb.write('memory/a.md', 'second a\n');
    expect((await sync()).sequence).toBe(1);
    unwritable(ctx, path.join(sb.workspace, 'memory'));
    const before = await readTree(sb.workspace, []);

    const error = await refusal(() => restoreAgent({ runtime: 'openclaw', agentId: agent.alf_agent_id, target, alfHome: sb.alfHome, workspace: sb.workspace, atSequence: 0, clock, replace: true }));
    expect(error).toMatchObject({
      code: 'workspace_file_invalid',
      message: expect.stringMatching(new RegExp(`^cannot restore into ${sb.workspace}: the directory memory, where the restore writes memory/a\\.md, cannot be written \\((EPERM|EACCES)\\)$`)),
    });
    expect(await readTree(sb.workspace, [])).toEqual(before);
  });

  it('ZeroClaw: a read-only directory where a raw file is created leaves brain.db as it was', async (ctx) => {
    const { sb, restore, gateway } = await zeroclawAtTwoSequences('memory/notes/guide.md', 'Read me first.\n', (workspace) => fs.rmSync(path.join(workspace, 'memory', 'notes', 'guide.md')));
    unwritable(ctx, path.join(sb.workspace, 'memory', 'notes'));
    const before = await readTree(sb.workspace, []);

    const error = await refusal(restore);
    expect(error).toMatchObject({
      code: 'workspace_file_invalid',
      message: expect.stringMatching(new RegExp(`^cannot restore into ${sb.workspace}: the directory memory/notes, where the restore writes memory/notes/guide\\.md, cannot be written \\((EPERM|EACCES)\\)$`)),
    });
    expect(gateway()).toBe('The gateway moved to 10.20.0.9');
    expect(await readTree(sb.workspace, [])).toEqual(before);
  });

  it('ZeroClaw: a read-only workspace directory, where the restore keeps its marker while it writes, leaves everything as it was', async (ctx) => {
    const { sb, restore, gateway } = await zeroclawAtTwoSequences('memory/notes/guide.md', 'Read me first.\n', (workspace) => fs.rmSync(path.join(workspace, 'memory', 'notes', 'guide.md')));
    unwritable(ctx, sb.workspace);
    const before = await readTree(sb.workspace, []);

    const error = await refusal(restore);
    expect(error).toMatchObject({
      code: 'workspace_file_invalid',
      message: expect.stringMatching(new RegExp(`^cannot restore into ${sb.workspace}: the workspace directory, where the restore keeps its marker while it writes, cannot be written \\((EPERM|EACCES)\\)$`)),
    });
    expect(gateway()).toBe('The gateway moved to 10.20.0.9');
    expect(await readTree(sb.workspace, [])).toEqual(before);
  });
});

/** Another process (the agent) holding the database's write lock until the test ends. */
async function lockedByAnotherProcess(dbPath: string): Promise<void> {
  const script = `
    const db = new (require('better-sqlite3'))(process.argv[1]);
    db.exec('BEGIN EXCLUSIVE');
    process.stdout.write('locked\\n');
    process.stdin.on('end', () => { db.exec('ROLLBACK'); db.close(); });
    process.stdin.resume();`;
  const child = spawn(process.execPath, ['-e', script, dbPath], { cwd: process.cwd() });
  await once(child.stdout, 'data');
  cleanups.unshift(async () => {
    child.stdin.end();
    await once(child, 'exit');
  });
}

describe('a live database the agent holds locked for a write: refused once the wait is over, nothing changed', () => {
  it('ZeroClaw: brain.db and every file as they were', async () => {
    const { sb, dbPath, restore } = await zeroclawAtTwoSequences('memory/notes.md', 'first\n', (workspace) => fs.writeFileSync(path.join(workspace, 'memory', 'notes.md'), 'second\n'));
    await lockedByAnotherProcess(dbPath);
    const before = await readTree(sb.workspace, []);

    const error = await refusal(restore);
    // Its decision reads brain.db first (which rows are there), and that read is what waits and refuses.
    expect(error).toMatchObject({ code: 'bad_store', message: `cannot read SQLite database ${dbPath}: another process holds it locked for a write (it was still locked after waiting 5 s)` });
    expect(await readTree(sb.workspace, [])).toEqual(before);
  });

  it('Hermes: state.db and every file as they were', async () => {
    const { sb, clock, target } = await sandbox();
    const dbPath = await seedStateDb(sb.workspace, [{ id: 'sess-1', source: 'cli', title: 'Deploy review', started_at: 1780000000 }], [
      { session_id: 'sess-1', role: 'user', content: 'Review the deploy', timestamp: 1780000010 },
    ]);
    await writeFiles(sb.workspace, { 'memories/MEMORY.md': 'Always run tests first.\n' });
    const sync = () => syncWorkspace({ runtime: 'hermes', workspace: sb.workspace, target, alfHome: sb.alfHome, clock });
    const { agent } = await sync();
    const db = new Database(dbPath);
    db.prepare("UPDATE sessions SET title = 'Renamed here' WHERE id = 'sess-1'").run();
    db.close();
    await writeFiles(sb.workspace, { 'memories/MEMORY.md': 'Never skip tests.\n' });
    expect((await sync()).sequence).toBe(1);
    await lockedByAnotherProcess(dbPath);
    const before = await readTree(sb.workspace, []);

    const error = await refusal(() => restoreAgent({ runtime: 'hermes', agentId: agent.alf_agent_id, target, alfHome: sb.alfHome, workspace: sb.workspace, atSequence: 0, clock, replace: true }));
    expect(error).toMatchObject({ code: 'restore_incomplete', message: `cannot restore into ${dbPath}: another process holds it locked for a write; nothing was changed` });
    expect(error.hint).toBe('stop the agent, or run the restore again when it has finished writing');
    expect(await readTree(sb.workspace, [])).toEqual(before);
  });
});
