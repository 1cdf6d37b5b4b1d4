/**
 * §10 of issue 18 end to end: a workspace whose agent id another tenant registered first gets
 * `agent_id_taken` from `lineage sync` (not `agent_not_found`), with a hint; `--agent-id` is the way out.
 */
import { randomUUID } from 'node:crypto';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, startTestServer, tempDataDir, type TestServer } from './harness';

const ENTRY = path.resolve(process.cwd(), 'lib/cli/main.ts');
let t: TestServer;
let scratch: string;

beforeAll(async () => {
  t = await startTestServer();
  scratch = tempDataDir();
});
afterAll(async () => {
  await t.close();
  fs.rmSync(scratch, { recursive: true, force: true });
});

/** The CLI as a child process (async: the server under test runs in this process's event loop). */
function lineage(args: string[]): Promise<{ status: number | null; out: Record<string, unknown> }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', ENTRY, ...args], {
      env: { ...process.env, ALF_HOME: path.join(scratch, 'home') }, stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.resume();
    child.on('error', reject);
    child.on('exit', (status) => resolve({ status, out: JSON.parse(stdout.trim().split('\n').pop() || '{}') as Record<string, unknown> }));
  });
}

describe('lineage sync when another tenant holds the agent id', () => {
  it('fails with agent_id_taken and a hint; --agent-id gives the workspace a new id and the sync goes through', async () => {
    const squatted = randomUUID();
    const reg = await call(`${t.url}/agents`, { method: 'POST', key: t.keyB, contentType: 'application/json', body: JSON.stringify({ id: squatted, name: 'squatter', source_runtime: 'openclaw' }) });
    expect(reg.status).toBe(201);
    const ws = path.join(scratch, 'ws');
    fs.mkdirSync(ws, { recursive: true });
    fs.writeFileSync(path.join(ws, 'MEMORY.md'), '# Memory\n\n## Fact\n\nThe sky is blue.\n');
    fs.writeFileSync(path.join(ws, '.alf-agent-id'), squatted);

    const taken = await lineage(['sync', '-r', 'openclaw', '-w', ws, '--server', t.url, '--key', t.keyA]);
    expect(taken.status).not.toBe(0);
    expect(taken.out).toMatchObject({ ok: false, code: 'agent_id_taken' });
    expect(String(taken.out.error)).toMatch(/another API key/);
    expect(String(taken.out.hint)).toMatch(/--agent-id/);

    const bad = await lineage(['sync', '-r', 'openclaw', '-w', ws, '--server', t.url, '--key', t.keyA, '--agent-id', 'not-a-uuid']);
    expect(bad.out).toMatchObject({ ok: false, code: 'invalid_argument' });
    expect(fs.readFileSync(path.join(ws, '.alf-agent-id'), 'utf8')).toBe(squatted);

    const fresh = randomUUID();
    const ok = await lineage(['sync', '-r', 'openclaw', '-w', ws, '--server', t.url, '--key', t.keyA, '--agent-id', fresh]);
    expect(ok.out).toMatchObject({ ok: true });
    expect(fs.readFileSync(path.join(ws, '.alf-agent-id'), 'utf8')).toBe(fresh);
    const mine = await call(`${t.url}/agents/${fresh}`, { key: t.keyA });
    expect(mine.status).toBe(200);
    expect(mine.json.latest_sequence).toBeGreaterThanOrEqual(0);
  }, 180_000);
});
