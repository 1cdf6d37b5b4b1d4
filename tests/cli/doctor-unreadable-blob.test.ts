/**
 * `lineage doctor` on a data directory one of whose blobs the file system will not read (here a
 * directory in its place: EISDIR; the same path as no permission or an I/O error). The history
 * index's notice sends the operator to doctor for exactly this (`blob_unreadable`), and doctor
 * itself failed as an internal error with a stack trace. It now lists the blob as damaged, says what
 * to do, and changes nothing; `--repair` too.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { runCli } from './run-cli';

let tmp = '';
let data = '';
let blob = '';
beforeAll(async () => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'lineage-doctor-unreadable-'));
  const ws = path.join(tmp, 'ws');
  data = path.join(tmp, 'data');
  fs.mkdirSync(ws);
  const env = { ALF_HOME: path.join(tmp, 'home') };
  for (const text of ['x.', 'y.']) {
    fs.writeFileSync(path.join(ws, 'MEMORY.md'), `# M\n\n## A\n${text}\n`);
    expect((await runCli(['sync', '-r', 'openclaw', '-w', ws, '--data', data], env)).json).toMatchObject({ ok: true });
  }
  const name = fs.readdirSync(path.join(data, 'blobs')).find((n) => n.endsWith('.alf-delta'))!;
  blob = path.join(data, 'blobs', name);
  fs.rmSync(blob);
  fs.mkdirSync(blob);
}, 120_000);
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

it.each([[['doctor']], [['doctor', '--repair']]])('%j lists the blob it cannot read as damaged, in words, and leaves it as it is', async (args) => {
  const run = await runCli([...args, '--data', data]);
  expect(run.json).toMatchObject({
    ok: false,
    damaged: [{ sequence: 1, kind: 'delta', problem: expect.stringMatching(/^the delta of agent \S+ at sequence 1 cannot be read: its blob \S+ \(EISDIR: .*\); make that file readable again, or restore it from a backup$/) }],
  });
  expect(run.json).not.toHaveProperty('code');
  expect(run.stderr).not.toMatch(/\n\s+at /);
  expect(fs.statSync(blob).isDirectory()).toBe(true);
});
