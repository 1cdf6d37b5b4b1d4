/**
 * `lineage validate` decides as the reference `alf validate` does (issue 19's table): each case is an
 * archive our writer wrote, changed in one place, and checked with the real bin — verdict, `ok`,
 * and exit status.
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeSnapshot } from '@/lib/core/archive';
import { AGENT_ID, makeRecord, makeSnapshot } from '@/lib/core/archive/testing/fixtures';
import { readZip, resolveLimits } from '@/lib/core/archive/zip-read';
import { writeZip } from '@/lib/core/archive/zip-write';
import type { JsonObject } from '@/lib/core/json';
import { tempLedger } from '@/lib/history/testing/temp-ledger';
import { registerAgent } from '@/lib/ledger';
import { ingestSnapshot } from '@/lib/storage/embedded-ingest';
import { runCli } from './run-cli';

let tmp: string;
beforeAll(async () => {
  tmp = await fs.mkdtemp(path.join(os.tmpdir(), 'lineage-validate-'));
});
afterAll(() => fs.rm(tmp, { recursive: true, force: true }));

/** Two partitions (2025-Q4, 2026-Q1), an identity, one raw file: valid as written. */
async function baseArchive(): Promise<Map<string, Uint8Array>> {
  const snapshot = makeSnapshot([
    makeRecord(1, { created_at: '2025-11-02T10:00:00Z' }),
    makeRecord(2, { created_at: '2026-01-15T10:00:00Z' }),
    makeRecord(3, { created_at: '2026-02-15T10:00:00Z' }),
  ], { 'raw/openclaw/MEMORY.md': '## fact\n' });
  snapshot.layers.identity = { id: '11111111-1111-5111-8111-111111111111', agent_id: AGENT_ID, version: 1, updated_at: '2026-01-01T00:00:00Z' };
  return (await readZip(await writeSnapshot(snapshot), resolveLimits())).files;
}

type Edit = (files: Map<string, Uint8Array>, manifest: JsonObject) => void;
const json = (bytes: Uint8Array) => JSON.parse(Buffer.from(bytes).toString('utf8')) as JsonObject;
const text = (value: unknown) => Buffer.from(typeof value === 'string' ? value : JSON.stringify(value, null, 2));
const partitions = (manifest: JsonObject) => ((manifest.layers as JsonObject).memory as JsonObject).partitions as JsonObject[];

async function archiveWith(edit: Edit): Promise<Uint8Array> {
  const files = await baseArchive();
  const manifest = json(files.get('manifest.json')!);
  edit(files, manifest);
  files.set('manifest.json', text(manifest));
  return writeZip([...files].map(([n, data]) => ({ name: n, data })));
}

async function validate(name: string, edit: Edit) {
  const file = path.join(tmp, `${name}.alf`);
  await fs.writeFile(file, await archiveWith(edit));
  return runCli(['validate', file]);
}

function editLines(files: Map<string, Uint8Array>, file: string, change: (lines: JsonObject[]) => JsonObject[]): void {
  const lines = Buffer.from(files.get(file)!).toString('utf8').trim().split('\n').map((l) => JSON.parse(l) as JsonObject);
  files.set(file, text(change(lines).map((l) => `${JSON.stringify(l)}\n`).join('')));
}

describe('lineage validate gives the reference verdict', () => {
  it('the archive as written is valid, with no warnings', async () => {
    const run = await validate('as-written', () => {});
    expect(run.code).toBe(0);
    expect(run.json).toEqual({ ok: true, valid: true, errors: [], warnings: [] });
  });

  const invalid: [string, Edit, RegExp][] = [
    ['partitions out of order by from', (_f, m) => partitions(m).reverse(), /partitions out of order/],
    ['a sealed partition with no to', (_f, m) => { const p = partitions(m)[0]!; p.sealed = true; delete p.to; }, /sealed but has no 'to'/],
    ['a partition to before its from', (_f, m) => { partitions(m)[1]!.to = '2025-12-31'; }, /'to' \(2025-12-31\) before 'from' \(2026-01-01\)/],
    ['an empty agent.name', (_f, m) => { (m.agent as JsonObject).name = ''; }, /must not be empty/],
    ['an empty record namespace', (f) => editLines(f, 'memory/2026-Q1.jsonl', (ls) => ls.map((l, i) => (i === 0 ? { ...l, namespace: '' } : l))), /must not be empty/],
    ['identity.agent_id other than the manifest agent id', (f) => {
      f.set('identity.json', text({ ...json(f.get('identity.json')!), agent_id: '22222222-2222-4222-8222-222222222222' }));
    }, /does not match manifest agent id/],
  ];
  for (const [name, edit, message] of invalid) {
    it(`${name}: an error, ok false, exit 1`, async () => {
      const run = await validate(name.replace(/\W+/g, '-'), edit);
      expect(run.code).toBe(1);
      expect(run.json).toMatchObject({ ok: false, valid: false });
      expect((run.json.errors as { message: string }[]).map((e) => e.message)).toEqual([expect.stringMatching(message)]);
    });
  }

  it('duplicate record ids with consistent counts: valid (a warning), exit 0 — and ingest still refuses the archive', async () => {
    const duplicated: Edit = (f, m) => {
      editLines(f, 'memory/2026-Q1.jsonl', (ls) => [...ls, ls[0]!]);
      partitions(m)[1]!.record_count = 3;
      ((m.layers as JsonObject).memory as JsonObject).record_count = 4;
    };
    const run = await validate('duplicate-ids', duplicated);
    expect(run.code).toBe(0);
    expect(run.json).toMatchObject({ ok: true, valid: true, errors: [] });
    expect(run.json.warnings).toEqual([{ path: 'memory/2026-Q1.jsonl:3#/id', message: expect.stringMatching(/duplicate record id/) }]);

    const { ledger, cleanup } = tempLedger();
    try {
      registerAgent({ ledger, id: AGENT_ID, name: 'standard', sourceRuntime: 'openclaw', tenantId: null, now: new Date() });
      await expect(ingestSnapshot({ ledger, agentId: AGENT_ID, bytes: await archiveWith(duplicated), now: new Date() }))
        .rejects.toThrow(/appears twice/);
      expect(ledger.db.sqlite.prepare('SELECT count(*) AS n FROM ledger_entries').get()).toEqual({ n: 0 });
    } finally {
      cleanup();
    }
  });

  it('duplicate record ids written as one UUID in two forms (upper case): the same warning and one of the form, exit 0 — ids are compared as UUID values; ingest refuses the upper-case id', async () => {
    const twoForms: Edit = (f, m) => {
      editLines(f, 'memory/2026-Q1.jsonl', (ls) => [...ls, { ...ls[0]!, id: (ls[0]!.id as string).toUpperCase() }]);
      partitions(m)[1]!.record_count = 3;
      ((m.layers as JsonObject).memory as JsonObject).record_count = 4;
    };
    const run = await validate('duplicate-ids-forms', twoForms);
    expect(run.code).toBe(0);
    expect(run.json).toMatchObject({ ok: true, valid: true, errors: [] });
    expect(run.json.warnings).toEqual([
      { path: 'memory/2026-Q1.jsonl:3#/id', message: expect.stringMatching(/^record id "[0-9A-F-]{36}" is not in the lowercase hyphenated form 8-4-4-4-12; the reference reader takes it, a ledger refuses it$/) },
      { path: 'memory/2026-Q1.jsonl:3#/id', message: expect.stringMatching(/^duplicate record id [0-9A-F-]{36} \(first at memory\/2026-Q1\.jsonl:1, as [0-9a-f-]{36}\)/) },
    ]);

    const { ledger, cleanup } = tempLedger();
    try {
      registerAgent({ ledger, id: AGENT_ID, name: 'standard', sourceRuntime: 'openclaw', tenantId: null, now: new Date() });
      await expect(ingestSnapshot({ ledger, agentId: AGENT_ID, bytes: await archiveWith(twoForms), now: new Date() }))
        .rejects.toThrow(/record 4: record id "[0-9A-F-]{36}" is not in the lowercase hyphenated form 8-4-4-4-12/);
      expect(ledger.db.sqlite.prepare('SELECT count(*) AS n FROM ledger_entries').get()).toEqual({ n: 0 });
    } finally {
      cleanup();
    }
  });

  it('null in a record\'s Option fields, and a UUID in a form the uuid crate parses: valid, exit 0, as the reference reader reads them (lib/ledger/validate-ingest-parity.test.ts has the table)', async () => {
    const run = await validate('nulls-and-uuid-forms', (f, m) => {
      (m.agent as JsonObject).source_runtime_version = null;
      editLines(f, 'memory/2026-Q1.jsonl', (ls) => ls.map((l, i) => (i === 0
        ? { ...l, category: null, confidence: null, supersedes: 'urn:uuid:0190a000-0000-7000-8000-0000000000aa', source: { ...(l.source as JsonObject), origin: null, identity_version: null } }
        : l)));
    });
    expect(run.code).toBe(0);
    expect(run.json).toEqual({ ok: true, valid: true, errors: [], warnings: [] });
  });

  it('the reference synthetic fixture: valid, warned only of its lorem-ipsum credential algorithms and KDFs; with --strict-crypto the algorithms are errors, exit 1', async () => {
    const fixture = path.resolve(process.cwd(), '../shared/alf/fixtures/synthetic-agent.alf');
    const run = await runCli(['validate', fixture]);
    expect(run.code).toBe(0);
    expect(run.json).toMatchObject({ ok: true, valid: true, errors: [] });
    const warnings = run.json.warnings as { path: string; message: string }[];
    expect(warnings.map((w) => w.path.replace(/\d+/, 'N')).sort()).toEqual(expect.arrayContaining(['credentials.json#/credentials/N/encryption/algorithm']));
    expect(warnings.every((w) => /^credentials\.json#\/credentials\/\d+\/encryption\/(algorithm|kdf)$/.test(w.path))).toBe(true);

    const strict = await runCli(['validate', '--strict-crypto', fixture]);
    expect(strict.code).toBe(1);
    expect(strict.json).toMatchObject({ ok: false, valid: false });
    const algorithms = warnings.filter((w) => w.path.endsWith('/algorithm'));
    expect(strict.json.errors).toEqual(algorithms.map((w) => ({ path: w.path, message: w.message.replace(' (an error with --strict-crypto)', '') })));
    expect(strict.json.warnings).toEqual(warnings.filter((w) => w.path.endsWith('/kdf')));
  });
});
