import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from './run-cli';

let tmp: string;
beforeAll(async () => {
  tmp = await fs.mkdtemp(path.join(os.tmpdir(), 'lineage-cli-changes-'));
});
afterAll(() => fs.rm(tmp, { recursive: true, force: true }));

/**
 * CONTRACT §2.3: `lineage sync`'s JSON says what a delta changed in the principals and the
 * identity, as the reference CLI's does (`changes.principals`, `changes.identity: true`), in its
 * key order; a delta of memories only says neither.
 */
describe('lineage sync: changes.principals and changes.identity through the real bin', () => {
  it('USER.md edited and removed, SOUL.md edited, a memory edited: each said as it is', async () => {
    const ws = path.join(tmp, 'ws');
    const data = path.join(tmp, 'data');
    const env = { ALF_HOME: path.join(tmp, 'home') };
    await fs.mkdir(ws, { recursive: true });
    await fs.writeFile(path.join(ws, 'MEMORY.md'), '# M\n\n## Gateway\nThe gateway is 10.20.0.5.\n');
    await fs.writeFile(path.join(ws, 'USER.md'), 'Dana, on call Mondays.\n');
    await fs.writeFile(path.join(ws, 'SOUL.md'), 'Calm and precise.\n');
    const sync = () => runCli(['sync', '-r', 'openclaw', '-w', ws, '--data', data], env);
    const first = await sync();
    expect(first.json).toMatchObject({ ok: true, sequence: 0, delta: false });
    expect(first.json).not.toHaveProperty('changes');

    await fs.writeFile(path.join(ws, 'USER.md'), 'Dana, on call Tuesdays.\n');
    const edited = await sync();
    expect(edited.json).toMatchObject({ ok: true, sequence: 1, delta: true });
    expect(edited.stdout).toContain('"changes":{"creates":0,"updates":0,"deletes":0,"principals":{"creates":0,"updates":1,"deletes":0}},');

    await fs.rm(path.join(ws, 'USER.md'));
    await fs.writeFile(path.join(ws, 'SOUL.md'), 'Calm, precise and brief.\n');
    const removed = await sync();
    expect(removed.json).toMatchObject({ ok: true, sequence: 2, delta: true });
    expect(removed.stdout).toContain('"changes":{"creates":0,"updates":0,"deletes":0,"principals":{"creates":0,"updates":0,"deletes":1},"identity":true},');

    await fs.writeFile(path.join(ws, 'MEMORY.md'), '# M\n\n## Gateway\nThe gateway is 10.20.0.9.\n');
    const memoryOnly = await sync();
    expect(memoryOnly.json).toMatchObject({ ok: true, sequence: 3, delta: true });
    expect(memoryOnly.json.changes).toEqual({ creates: 0, updates: 1, deletes: 0 });
  });
});
