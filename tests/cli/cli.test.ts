import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, runCliText } from './run-cli';

let tmp: string;
beforeAll(async () => {
  tmp = await fs.mkdtemp(path.join(os.tmpdir(), 'lineage-cli-'));
});
afterAll(() => fs.rm(tmp, { recursive: true, force: true }));

describe('lineage CLI: one JSON object on stdout, errors as {ok:false,code,error,hint} with exit 1', () => {
  it('reports usage mistakes as coded errors', async () => {
    const missing = await runCli(['sync', '-r', 'openclaw']);
    expect(missing.code).toBe(1);
    expect(missing.json).toMatchObject({ ok: false, code: 'invalid_argument' });
    const runtime = await runCli(['sync', '-r', 'nanoclaw', '-w', tmp]);
    expect(runtime.json).toMatchObject({ ok: false, code: 'invalid_runtime', hint: expect.stringContaining('openclaw') });
    const data = path.join(tmp, 'untouched-data');
    const noWorkspace = await runCli(['sync', '-w', path.join(tmp, 'does-not-exist'), '--data', data]);
    expect(noWorkspace.json).toMatchObject({ ok: false, code: 'workspace_missing' });
    await expect(fs.stat(data)).rejects.toThrow();
    const unknown = await runCli(['frobnicate']);
    expect(unknown.code).toBe(1);
    expect(unknown.json.ok).toBe(false);
  });

  it('says each usage mistake once, in words, and never as an internal error', async () => {
    const count = (text: string, part: string) => text.split(part).length - 1;
    // Commander's own `error:` line is not written beside ours (it was, so every mistake showed twice).
    const option = await runCli(['sync', '--bogus']);
    expect(option.json).toEqual({ ok: false, code: 'invalid_argument', error: "unknown option '--bogus'", hint: 'run `lineage sync --help` for usage' });
    expect(count(option.stderr, "unknown option '--bogus'")).toBe(1);
    const argument = await runCli(['validate']);
    expect(argument.json).toMatchObject({ code: 'invalid_argument', error: "missing required argument 'file'" });
    expect(count(argument.stderr, 'missing required argument')).toBe(1);
    const typo = await runCli(['synk']);
    expect(typo.json).toMatchObject({ code: 'invalid_argument', error: expect.stringContaining('Did you mean sync?') });
    expect(count(typo.stderr, "unknown command 'synk'")).toBe(1);
    // No command, or a group without its subcommand: the usage lists them, and the error says so
    // (it said "(outputHelp)", commander's internal message).
    const none = await runCli([]);
    expect(none.code).toBe(1);
    expect(none.json).toMatchObject({ ok: false, code: 'invalid_argument', error: expect.stringContaining('no command given') });
    expect(none.stderr).toContain('Usage: lineage [options] [command]');
    expect(none.stderr).toContain('  sync [options]');
    const group = await runCli(['keys']);
    expect(group.json).toMatchObject({ code: 'invalid_argument', error: expect.stringContaining('`lineage keys` needs a subcommand') });
    expect(group.stderr).toContain('create');
    for (const run of [none, group]) expect(run.stdout + run.stderr).not.toContain('outputHelp');
    // Words that are properties of every object are no commands (they were an internal error).
    for (const word of ['constructor', '__proto__', 'toString']) {
      const run = await runCli([word]);
      expect(run.json).toEqual({ ok: false, code: 'invalid_argument', error: `unknown command '${word}'`, hint: 'run `lineage --help` for usage' });
      expect(run.stderr).not.toContain('TypeError');
    }
  });

  it('answers --version and help without a command, and help for one command with its options', async () => {
    for (const flag of ['--version', '-V']) expect(await runCliText([flag])).toMatchObject({ code: 0, stdout: '0.1.0\n' });
    const all = await runCliText(['--help']);
    expect(all.code).toBe(0);
    for (const name of ['sync', 'watch', 'restore', 'validate', 'search', 'serve', 'keys', 'state']) expect(all.stdout).toContain(`\n  ${name} `);
    for (const args of [['help', 'sync'], ['sync', '--help']]) {
      const one = await runCliText(args);
      expect(one.code).toBe(0);
      expect(one.stdout).toContain('Usage: lineage sync [options]');
      expect(one.stdout).toContain('--workspace');
    }
  });

  it('a command that only reads a data directory does not create one: a mistyped --data is a clear error', async () => {
    const data = path.join(tmp, 'mistyped-data');
    const runs = [
      await runCli(['index', '--rebuild', '--data', data]),
      await runCli(['keys', 'list', '--data', data]),
      await runCli(['keys', 'revoke', 'k_0000', '--data', data]),
    ];
    for (const run of runs) {
      expect(run.code).toBe(1);
      expect(run.json).toMatchObject({ ok: false, code: 'data_not_found', error: expect.stringContaining(data), hint: expect.stringContaining('--data') });
    }
    const out = path.join(tmp, 'mistyped-out');
    const restore = await runCli(['restore', '--agent', '5a5a5a5a-3333-4a2b-8c3d-000000000001', '--out', out, '--data', data]);
    expect(restore.code).toBe(1);
    expect(restore.json).toMatchObject({ ok: false, code: 'agent_not_found', error: expect.stringContaining(`no lineage data directory at ${data}`) });
    for (const dir of [data, out]) await expect(fs.stat(dir)).rejects.toThrow(/ENOENT/);
  });

  it('validate reports a hostile archive as invalid with a clear error, never a crash', async () => {
    const file = path.join(tmp, 'not-a-zip.alf');
    await fs.writeFile(file, 'PK\u0003\u0004 this is not really a zip');
    const run = await runCli(['validate', file]);
    // As the reference: an invalid archive is ok:false and exits 1.
    expect(run.code).toBe(1);
    expect(run.json).toMatchObject({ ok: false, valid: false });
    expect((run.json.errors as { message: string }[])[0]!.message.length).toBeGreaterThan(5);
  });

  it('syncs and restores through the local ledger; a stale base is sync_upload_failed naming the latest', async () => {
    const ws = path.join(tmp, 'ws');
    const data = path.join(tmp, 'data');
    const [home1, home2] = [path.join(tmp, 'home1'), path.join(tmp, 'home2')];
    await fs.mkdir(ws, { recursive: true });
    await fs.writeFile(path.join(ws, 'MEMORY.md'), '# M\n\n## Gateway\nThe gateway is 10.20.0.5.\n');
    const first = await runCli(['sync', '-r', 'openclaw', '-w', ws, '--data', data], { ALF_HOME: home1 });
    expect(first.json).toMatchObject({ ok: true, sequence: 0, delta: false, no_changes: false });
    expect(first.stderr).toContain('first sync');

    // A second machine holding the same base state (a copy of the workspace and of the ALF home).
    const ws2 = path.join(tmp, 'ws2');
    await fs.cp(home1, home2, { recursive: true });
    await fs.cp(ws, ws2, { recursive: true });
    const home1Aside = path.join(tmp, 'home1-aside');
    await fs.cp(home1, home1Aside, { recursive: true });
    await fs.writeFile(path.join(ws, 'MEMORY.md'), '# M\n\n## Gateway\nThe gateway is 10.20.0.9.\n');
    const second = await runCli(['sync', '-w', ws, '--data', data], { ALF_HOME: home1 });
    expect(second.json).toMatchObject({ ok: true, sequence: 1, delta: true, changes: { creates: 0, updates: 1, deletes: 0 } });

    // The first machine's state put back from before that sync: its own upload is adopted.
    await fs.appendFile(path.join(ws, 'MEMORY.md'), '\n## Editor\nvim\n');
    const rolledBack = await runCli(['sync', '-w', ws, '--data', data], { ALF_HOME: home1Aside });
    expect(rolledBack.json).toMatchObject({ ok: true, sequence: 2, delta: true, recovered: true, changes: { creates: 1, updates: 0, deletes: 0 } });

    // The second machine is behind by entries that are not its own: an error whose hint's command,
    // run as printed, fixes it, without touching the workspace; the next sync uploads the difference.
    await fs.appendFile(path.join(ws2, 'MEMORY.md'), '\n## Shell\nzsh\n');
    const stale = await runCli(['sync', '-w', ws2, '--data', data], { ALF_HOME: home2 });
    expect(stale.code).toBe(1);
    expect(stale.json).toMatchObject({ ok: false, code: 'sync_upload_failed' });
    expect(stale.json.error).toMatch(/at sequence 0, but .* is at sequence 2/);
    const hinted = /`(lineage sync --rebase [^`]*)`/.exec(String(stale.json.hint))![1]!;
    const memoryBefore = await fs.readFile(path.join(ws2, 'MEMORY.md'), 'utf8');
    const rebased = await runCli(hinted.split(' ').slice(1), { ALF_HOME: home2 });
    expect(rebased.json).toMatchObject({ ok: true, rebased: true, sequence: 2, previous_sequence: 0 });
    expect(await fs.readFile(path.join(ws2, 'MEMORY.md'), 'utf8')).toBe(memoryBefore);
    const after = await runCli(['sync', '-w', ws2, '--data', data], { ALF_HOME: home2 });
    expect(after.json).toMatchObject({ ok: true, sequence: 3, delta: true, changes: { creates: 1, updates: 1, deletes: 1 } });

    // A fresh machine must not bury the existing history with a new first snapshot.
    const guarded = await runCli(['sync', '-w', ws, '--data', data], { ALF_HOME: path.join(tmp, 'home3') });
    expect(guarded.json).toMatchObject({ ok: false, code: 'registration_failed' });
    expect(guarded.json.hint).toContain('lineage sync --rebase');

    const agentId = (first.json.agent as { alf_agent_id: string }).alf_agent_id;
    const out = path.join(tmp, 'restored-0');
    const restored = await runCli(['restore', '-r', 'openclaw', '--agent', agentId, '--at-sequence', '0', '--out', out, '--data', data], { ALF_HOME: home1 });
    expect(restored.json).toMatchObject({ ok: true, agent_id: agentId, sequence: 0, workspace: out });
    expect(await fs.readFile(path.join(out, 'MEMORY.md'), 'utf8')).toContain('10.20.0.5');

    const beyond = await runCli(['restore', '--agent', agentId, '--at-sequence', '9', '--out', path.join(tmp, 'nope'), '--data', data], { ALF_HOME: home1 });
    expect(beyond.code).toBe(1);
    // The CLI's flag and the latest sequence, not the API's `up_to_sequence 9 exceeds…`.
    expect(beyond.json).toMatchObject({ ok: false, code: 'sequence_out_of_range', error: `--at-sequence 9 is past the latest sequence of agent ${agentId}, which is 3` });
  });
});
