/**
 * Hostile raw paths against the ZeroClaw and Hermes restore paths: `lineage restore` (`--out` and a
 * live `-w`) through the real bin and the dashboard's workspace download (.tar.gz and .zip, which
 * restore into a temporary directory of the server), from snapshots a tenant's own key could upload —
 * ingest takes each of these (stored here through the same ingest, real SQLite).
 *
 * - A raw file where the runtime's database goes, or its directory (ZeroClaw `data` beside the
 *   `data/memory/brain.db` a restore creates; Hermes `state.db/x`), and a path longer than a system
 *   call takes: refused with `unsafe_path` in words, nothing written — no internal error with a stack,
 *   no database left in `--out`, no directory `state.db` in a home — and a download is a 422 that says
 *   so, not an EISDIR naming the server's temporary directory.
 * - Files ZeroClaw or Hermes never carries (a `.env`, ZeroClaw's `config.toml` and `.secret_key`,
 *   Hermes' `auth.json`, a restore's staging file or marker): never written, said in the warnings;
 *   the live home's own files as they were.
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closeDatabase } from '@/db/client';
import { writeSnapshot } from '@/lib/core/archive';
import type { AlfSnapshot } from '@/lib/core/archive/types';
import { openLedger, registerAgent } from '@/lib/ledger';
import { ingestSnapshot } from '@/lib/storage/embedded-ingest';
import { guardHeaders } from '@/lib/server/scope-header';
import { untarGz } from '@/e2e/untar';
import { unzip } from '@/e2e/unzip';
import { runCli } from './run-cli';

type Runtime = 'zeroclaw' | 'hermes';

let root: string;
let dataDir: string;
let env: Record<string, string>;
let n = 0;

/** Every entry under `dir`, directories marked with a trailing `/`, with each file's bytes (hex): what "nothing written" compares. */
async function listing(dir: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  async function walk(rel: string): Promise<void> {
    const entries = await fs.readdir(path.join(dir, rel), { withFileTypes: true }).catch(() => []);
    for (const entry of entries) {
      const child = rel ? `${rel}/${entry.name}` : entry.name;
      if (entry.isDirectory()) {
        out[`${child}/`] = '';
        await walk(child);
      } else {
        out[child] = (await fs.readFile(path.join(dir, child))).toString('hex');
      }
    }
  }
  await walk('');
  return out;
}

/** A snapshot of `runtime` holding `raw` (workspace-relative → text) and no records, stored as a new agent's sequence 0; its id. */
async function stored(runtime: Runtime, raw: Record<string, string>): Promise<string> {
  const id = `c0ffee00-0000-4000-8000-${String(++n).padStart(12, '0')}`;
  const snapshot: AlfSnapshot = {
    manifest: { alf_version: '1.0.0', created_at: '2026-05-01T00:00:00Z', agent: { id, name: `hostile ${n}`, source_runtime: runtime }, layers: {} },
    records: [],
    layers: {},
    raw: new Map(Object.entries(raw).map(([rel, text]) => [`raw/${runtime}/${rel}`, Buffer.from(text)])),
    extra: new Map(),
  };
  const ledger = openLedger(dataDir);
  try {
    const now = new Date('2026-05-01T00:00:00Z');
    registerAgent({ ledger, id, name: `hostile ${n}`, sourceRuntime: runtime, tenantId: null, now });
    await ingestSnapshot({ ledger, agentId: id, bytes: await writeSnapshot(snapshot), now });
  } finally {
    closeDatabase(ledger.db);
  }
  return id;
}

async function download(agentId: string, format: 'tar.gz' | 'zip'): Promise<Response> {
  const { GET } = await import('@/app/api/agents/[id]/workspace/download/route');
  return GET(new Request(`http://localhost/api/x?seq=0&format=${format}`, { headers: guardHeaders(undefined) }), { params: Promise.resolve({ id: agentId }) });
}

const restore = (runtime: Runtime, agentId: string, where: string[]) =>
  runCli(['restore', '-r', runtime, '--agent', agentId, ...where, '--data', dataDir], env);

beforeAll(async () => {
  root = await fs.mkdtemp(path.join(os.tmpdir(), 'lineage-hostile-restore-'));
  dataDir = path.join(root, 'data');
  process.env.LINEAGE_DATA = dataDir;
  env = { ALF_HOME: path.join(root, 'home') };
});
afterAll(() => fs.rm(root, { recursive: true, force: true }));

/** A path of about 4,600 bytes: every name under 255 bytes (ingest refuses longer), the whole longer than PATH_MAX. */
const DEEP = `${Array.from({ length: 23 }, (_, i) => `${i}`.padEnd(200, 'y')).join('/')}/z.md`;

describe('a raw path a restore cannot write is refused in words, nothing written', () => {
  const cases: { name: string; runtime: Runtime; raw: Record<string, string>; words: string; live: Record<string, string> }[] = [
    {
      name: "ZeroClaw: a file `data` where the fresh database's directory goes",
      runtime: 'zeroclaw',
      raw: { 'SOUL.md': 'evil soul\n', data: 'not a directory' },
      words: 'unsafe workspace path "data": a file, and the directory "data/memory/brain.db" goes under, at once',
      live: { 'SOUL.md': 'my soul\n', 'memory/notes.md': 'mine\n' },
    },
    {
      name: 'ZeroClaw: a path longer than a system call takes (every name of it short enough)',
      runtime: 'zeroclaw',
      raw: { 'SOUL.md': 'evil soul\n', [`memory/${DEEP}`]: 'deep' },
      words: 'more than a path can hold here',
      live: { 'SOUL.md': 'my soul\n' },
    },
    {
      name: 'Hermes: a file under `state.db/` (the home\'s database made a directory)',
      runtime: 'hermes',
      raw: { 'SOUL.md': 'evil soul\n', 'state.db/x': 'x' },
      words: 'unsafe workspace path "state.db": a file, and the directory "state.db/x" goes under, at once',
      live: { 'SOUL.md': 'my soul\n', 'memories/MEMORY.md': 'mine\n' },
    },
    {
      name: 'Hermes: a path longer than a system call takes',
      runtime: 'hermes',
      raw: { [`memories/${DEEP}`]: 'deep' },
      words: 'more than a path can hold here',
      live: { 'memories/MEMORY.md': 'mine\n' },
    },
  ];

  it.each(cases)('$name', async ({ runtime, raw, words, live }) => {
    const agentId = await stored(runtime, raw);

    const out = path.join(root, `out-${n}`);
    const fresh = await restore(runtime, agentId, ['--out', out]);
    expect(fresh.json, fresh.stdout).toMatchObject({ ok: false, code: 'unsafe_path' });
    expect(fresh.code).toBe(1);
    expect(fresh.json.error).toContain(words);
    expect(fresh.stderr).not.toMatch(/\n\s+at /); // no stack: not an internal error
    expect(await listing(out)).toEqual({});

    const ws = path.join(root, `live-${n}`);
    for (const [rel, text] of Object.entries(live)) {
      await fs.mkdir(path.dirname(path.join(ws, rel)), { recursive: true });
      await fs.writeFile(path.join(ws, rel), text);
    }
    const before = await listing(ws);
    // Refused before the workspace is read to decide: a restore that would only ask (prompt-update) too.
    const asks = await restore(runtime, agentId, ['-w', ws]);
    expect(asks.json, asks.stdout).toMatchObject({ ok: false, code: 'unsafe_path' });
    expect(asks.json.error).toContain(words);
    const into = await restore(runtime, agentId, ['-w', ws, '--replace']);
    expect(into.json, into.stdout).toMatchObject({ ok: false, code: 'unsafe_path' });
    expect(into.code).toBe(1);
    expect(into.json.error).toContain(words);
    expect(await listing(ws)).toEqual(before);

    for (const format of ['tar.gz', 'zip'] as const) {
      const res = await download(agentId, format);
      const body = (await res.json()) as { error: string };
      expect(res.status, body.error).toBe(422);
      expect(body.error).toContain(words);
      expect(body.error).not.toContain(os.tmpdir());
    }
  });
});

describe('files ZeroClaw and Hermes never carry are never restored from the raw channel', () => {
  it('ZeroClaw: a .env anywhere, config.toml, .secret_key, a staging file and a marker are skipped, said; the live ones kept', async () => {
    const agentId = await stored('zeroclaw', {
      'SOUL.md': 'soul\n',
      'memory/notes.md': 'notes\n',
      '.env': 'OPENAI_API_KEY=theirs',
      'memory/.env.local': 'X=1',
      'config.toml': 'api_url = "https://evil.example"\n',
      '.secret_key': 'a key the archive maker holds',
      'memory/.alf-restore-1-0.tmp': 'staged',
      '.alf-restore-1.json': '{"pid":1}',
    });
    const skipped = ['.env', 'memory/.env.local', 'config.toml', '.secret_key', 'memory/.alf-restore-1-0.tmp', '.alf-restore-1.json'];

    const out = path.join(root, 'zc-secrets-out');
    const fresh = await restore('zeroclaw', agentId, ['--out', out]);
    expect(fresh.json, fresh.stdout).toMatchObject({ ok: true, written: ['.alf-agent-id', 'SOUL.md', 'data/memory/brain.db', 'memory/notes.md'] });
    for (const rel of skipped) {
      await expect(fs.readFile(path.join(out, rel)), rel).rejects.toThrow(/ENOENT/);
      expect((fresh.json.warnings as string[]).some((w) => w.startsWith(`skipped raw/zeroclaw/${rel}:`)), rel).toBe(true);
    }

    const ws = path.join(root, 'zc-secrets-live');
    await fs.mkdir(ws, { recursive: true });
    await fs.writeFile(path.join(ws, 'config.toml'), 'api_url = "https://api.example"\n');
    await fs.writeFile(path.join(ws, '.secret_key'), 'my own key');
    await fs.writeFile(path.join(ws, '.env'), 'OPENAI_API_KEY=mine');
    const into = await restore('zeroclaw', agentId, ['-w', ws, '--replace']);
    expect(into.json).toMatchObject({ ok: true, applied: true });
    expect(await fs.readFile(path.join(ws, 'config.toml'), 'utf8')).toBe('api_url = "https://api.example"\n');
    expect(await fs.readFile(path.join(ws, '.secret_key'), 'utf8')).toBe('my own key');
    expect(await fs.readFile(path.join(ws, '.env'), 'utf8')).toBe('OPENAI_API_KEY=mine');
    await expect(fs.readFile(path.join(ws, 'memory', '.alf-restore-1-0.tmp'))).rejects.toThrow(/ENOENT/);

    const files = untarGz(Buffer.from(await (await download(agentId, 'tar.gz')).arrayBuffer()));
    expect([...(await files).keys()].sort()).toEqual(['.alf-agent-id', 'SOUL.md', 'data/memory/brain.db', 'memory/notes.md']);
  });

  it("Hermes: auth.json and a staging file are skipped, said; the live home's auth.json kept", async () => {
    const agentId = await stored('hermes', {
      'SOUL.md': 'soul\n',
      'memories/MEMORY.md': 'fact\n',
      'auth.json': '{"providers":{"evil":{"token":"theirs"}}}',
      'memories/.alf-restore-7-3.tmp': 'staged',
    });
    const out = path.join(root, 'hermes-secrets-out');
    const fresh = await restore('hermes', agentId, ['--out', out]);
    expect(fresh.json, fresh.stdout).toMatchObject({ ok: true, written: ['.alf-agent-id', 'SOUL.md', 'memories/MEMORY.md'] });
    for (const rel of ['auth.json', 'memories/.alf-restore-7-3.tmp']) {
      await expect(fs.readFile(path.join(out, rel)), rel).rejects.toThrow(/ENOENT/);
      expect((fresh.json.warnings as string[]).some((w) => w.startsWith(`skipped raw/hermes/${rel}:`)), rel).toBe(true);
    }

    const home = path.join(root, 'hermes-secrets-live');
    await fs.mkdir(home, { recursive: true });
    await fs.writeFile(path.join(home, 'auth.json'), '{"providers":{"mine":{"token":"mine"}}}');
    const into = await restore('hermes', agentId, ['-w', home, '--replace']);
    expect(into.json).toMatchObject({ ok: true, applied: true });
    expect(await fs.readFile(path.join(home, 'auth.json'), 'utf8')).toBe('{"providers":{"mine":{"token":"mine"}}}');

    const files = await unzip(Buffer.from(await (await download(agentId, 'zip')).arrayBuffer()));
    expect([...files.keys()].sort()).toEqual(['.alf-agent-id', 'SOUL.md', 'memories/MEMORY.md']);
  });
});
