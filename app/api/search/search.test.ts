/**
 * GET /api/search and `lineage search`: two doors over one engine, the same JSON for the same
 * question (the command through commander and through the real bin), and the same refusals.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { Command } from 'commander';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { NS } from '@/lib/core/ids';
import { uuidV5 } from '@/lib/core/uuid';
import { registerSearchCommand } from '@/lib/cli/commands/search';
import { FactHistory } from '@/lib/history/search/testing/fact-history';
import { openLedger } from '@/lib/ledger';
import { guardHeaders } from '@/lib/server/scope-header';

const AGENT = '7c7c7c7c-3333-4a2b-8c3d-000000000001';
const req = (query: string) => new Request(`http://localhost/api/search?${query}`, { headers: guardHeaders(undefined) });
let dataDir: string;

beforeAll(async () => {
  const base = fs.mkdtempSync(path.join(os.tmpdir(), 'lineage-search-api-'));
  dataDir = path.join(base, 'data');
  process.env.LINEAGE_DATA = dataDir;
  const history = new FactHistory(openLedger(dataDir), AGENT, Date.parse('2026-11-16T08:00:00Z')).register('atlas');
  const gw = { id: uuidV5(NS.alf, 'api:gw'), file: 'memory/semantic/infrastructure.md', content: 'The LAN gateway is 10.20.0.53, fanless.' };
  await history.sync([gw]);
  await history.sync([gw, { id: uuidV5(NS.alf, 'api:dns'), file: 'memory/semantic/infrastructure.md', content: 'DNS at 10.20.0.5.' }]);
  await history.sync([{ ...gw, content: 'The LAN gateway is 10.20.0.54.' }]);
});

afterAll(() => fs.rmSync(path.dirname(dataDir), { recursive: true, force: true }));

async function api(query: string): Promise<{ status: number; body: unknown }> {
  const { GET } = await import('./route');
  const res = await GET(req(query), undefined);
  return { status: res.status, body: await res.json() };
}

async function cli(args: string[]): Promise<unknown> {
  const out: string[] = [];
  const spy = vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => { out.push(String(chunk)); return true; });
  try {
    const program = new Command().exitOverride();
    registerSearchCommand(program);
    await program.parseAsync(['node', 'lineage', 'search', ...args, '--data', dataDir]);
  } finally {
    spy.mockRestore();
  }
  expect(out).toHaveLength(1);
  return JSON.parse(out[0]!);
}

describe('two doors over one search', () => {
  it('prints exactly the JSON the API answers', async () => {
    for (const [q, agent] of [['gateway fanless', undefined], ['"LAN gateway"', AGENT], ['10.20.0.5', AGENT], ['gatewey', undefined]] as const) {
      const query = `q=${encodeURIComponent(q)}${agent ? `&agent=${agent}` : ''}`;
      const fromApi = await api(query);
      expect(fromApi.status).toBe(200);
      expect(await cli([q, ...(agent ? ['--agent', agent] : [])])).toEqual(fromApi.body);
    }
    const answer = (await api('q=gateway+fanless')).body as { first: { sequence: number; op: string }; status: unknown; total: number };
    expect(answer).toMatchObject({ first: { sequence: 0, op: 'create' }, total: 1, status: { present: false, last_seen_sequence: 1, gone_at_sequence: 2, deleted: false } });
  });

  it('runs as `lineage search` from the real bin', async () => {
    const { stdout } = await promisify(execFile)(process.execPath, [path.resolve('bin/lineage.mjs'), 'search', '10.20.0.5', '--agent', AGENT, '--data', dataDir]);
    expect(JSON.parse(stdout)).toEqual((await api(`q=10.20.0.5&agent=${AGENT}`)).body);
  }, 180_000);
});

describe('refusals', () => {
  it('answers 400 in words for NUL, over-long, empty and malformed queries, 404 for an unknown agent', async () => {
    expect(await api('q=gate%00way')).toEqual({ status: 400, body: { error: expect.stringMatching(/NUL character/) } });
    expect(await api(`q=${'x'.repeat(501)}`)).toEqual({ status: 400, body: { error: expect.stringMatching(/too long: at most 500 characters/) } });
    expect(await api('q=')).toEqual({ status: 400, body: { error: expect.stringMatching(/Type something to search for/) } });
    expect(await api('')).toMatchObject({ status: 400 });
    expect(await api('q=%22%22')).toEqual({ status: 400, body: { error: expect.stringMatching(/no words/) } });
    expect(await api('q=x&limit=0')).toMatchObject({ status: 400, body: { error: expect.stringMatching(/limit must be a positive whole number/) } });
    expect(await api('q=x&offset=-1')).toMatchObject({ status: 400 });
    expect(await api('q=x&sort=asc')).toMatchObject({ status: 400, body: { error: expect.stringMatching(/unknown parameter "sort"/) } });
    expect(await api('q=x&agent=7c7c7c7c-3333-4a2b-8c3d-00000000ffff')).toMatchObject({ status: 404 });
    for (const q of ['NEAR(gateway fanless)', 'content:gateway', '^gateway', 'gateway OR dns', '"gateway', '(', ')', '*', '"*"', 'a"b"c"']) {
      expect((await api(`q=${encodeURIComponent(q)}`)).status, q).toBe(200);
    }
  });

  it('refuses a limit over 500 in words that say the largest, on both doors — it was cut to 500 without a word', async () => {
    const words = 'limit must be at most 500 (later appearances per page), got "501"; page with offset for more';
    expect(await api('q=gateway&limit=500')).toMatchObject({ status: 200 });
    expect(await api('q=gateway&limit=501')).toEqual({ status: 400, body: { error: words } });
    expect(await api(`q=gateway&limit=${'9'.repeat(30)}`)).toEqual({ status: 400, body: { error: expect.stringMatching(/^limit must be at most 500 /) } });
    await expect(cli(['gateway', '--limit', '501'])).rejects.toThrow(words);
  });

  it('takes the agent exactly as given: a space around its id is no agent (it meant the agent trimmed)', async () => {
    const total = ((await api(`q=gateway&agent=${AGENT}`)).body as { total: number }).total;
    expect(total).toBeGreaterThan(0);
    for (const agent of [` ${AGENT}`, `${AGENT} `]) {
      expect(await api(`q=gateway&agent=${encodeURIComponent(agent)}`), agent).toMatchObject({ status: 404 });
    }
    // No agent is no filter, as before.
    expect(await api('q=gateway&agent=')).toMatchObject({ status: 200, body: { total } });
  });
});
