/**
 * No record a client can upload breaks a page (non-negotiable: no input a user can send may produce
 * a 500, or break another tenant's pages). tests/server/hostile.test.ts refuses hostile ARCHIVES
 * case by case; this one sends well-formed deltas whose records hold hostile VALUES — a field of
 * the wrong type, a time no calendar has, 300,000 characters, markup, control and bidi characters,
 * paths that climb, nesting 200 deep — drawn from a seeded generator, through the protocol of a real
 * `lineage serve` with its dashboard. Each upload is refused in words (4xx) or taken; after each one
 * taken, every dashboard API route of the agent answers without a 5xx, and at the end every page of
 * it, each of its sequences, its restore and downloads do too, and another tenant's agent, the
 * change feed and search are unharmed.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeDelta } from '@/lib/core/archive';
import { craftZip } from '@/lib/core/archive/testing/craft-zip';
import { prng } from '@/lib/core/prng';
import { record, snapshotBytes } from './archives';
import { raw } from './dashboard-http';
import { call, serveTwoTenants, type ServedTenants } from './harness';

const SEED = 20261206;
const UPLOADS = 30;
const OCTET = 'application/octet-stream';

const deep = (n: number): unknown => Array.from({ length: n }).reduce<unknown>((inner) => [inner], 1);
/** Values a field may hold instead of its own. */
const VALUES: unknown[] = [
  null, 0, -1, 1e308, -0.5, true, '', ' ', 'x'.repeat(300_000), '<script>alert(1)</script><img src=x onerror=alert(2)>',
  '\u202egnp.exe', '\u0000', '\ud800', '2026-13-45T99:99:99Z', '9999-12-31T23:59:59Z', '0000-01-01T00:00:00Z', '-000001-01-01T00:00:00Z',
  '+275760-09-13T00:00:00Z', '2026-01-01', '1', [], {}, ['a', 1, null], { a: { b: { c: 1 } } }, deep(200), '__proto__', 'constructor',
  '../../etc/passwd', 'MEMORY.md', 'memory/x.md', 'memory/2026-02-30.md', '{"a":1}', '%00', '日本語のメモ', 'a\nb\r\nc', '# heading\n## sub',
];
/** The fields a value goes into (a path into the record): those the readers require, a value of the wrong type refused … */
const REQUIRED = ['content', 'memory_type', 'namespace', 'status', 'agent_id', 'source', 'source.runtime', 'temporal', 'temporal.created_at'];
/**
 * … and the optional ones: a value of a type the reference reader refuses is refused at ingest (each case:
 * tests/server/hostile-fields.test.ts), the rest — `raw_source_format` and what it holds, unknown keys, null, a number
 * the validator would flag — kept as they come, which every page must draw.
 */
const OPTIONAL = [
  'source.origin', 'source.origin_file', 'source.extraction_method', 'temporal.updated_at', 'temporal.observed_at', 'temporal.valid_from',
  'temporal.valid_until', 'tags', 'raw_source_format', 'raw_source_format.heading', 'raw_source_format.line_start', 'raw_source_format.line_end',
  'raw_source_format.key', 'raw_source_format.tier', 'entities', 'embeddings', 'confidence', 'category', 'supersedes', 'related_records', 'extra_field',
];
/** Namespaces a record starts from (the curated, daily and per-file renderings of a record-only delta). */
const NAMESPACES = ['curated', 'daily', 'workspace', 'project', 'session:cli'];
/** Raw files a delta may carry, some of them odd names, some not OpenClaw's. */
const RAW = [
  'raw/openclaw/memory/a.md', 'raw/openclaw/MEMORY.md', 'raw/openclaw/memory/日本.md', 'raw/openclaw/memory/ sp .md',
  `raw/openclaw/${'d/'.repeat(60)}x.md`, 'raw/openclaw/.alf-agent-id', 'raw/zeroclaw/brain.db', 'raw/openclaw/memory/<b>x</b>.md', 'raw/openclaw/a\u202e.md',
];
const RAW_BYTES = ['## A\nx\n', '\u0000\u0001binary', '<script>x</script>', ''];

let served: ServedTenants;
let base: string;
let keys: ServedTenants['keys'];
const hostile = randomUUID();
const healthy = randomUUID();
/** Every record id the hostile agent's uploads named, and the raw paths they carried. */
const touched = new Set<string>();
let latest = 0;

function setField(target: Record<string, unknown>, field: string, value: unknown): void {
  const parts = field.split('.');
  let at = target;
  for (const key of parts.slice(0, -1)) {
    if (at[key] === null || typeof at[key] !== 'object') at[key] = {};
    at = at[key] as Record<string, unknown>;
  }
  at[parts.at(-1)!] = value;
}

async function register(key: string, id: string, name: string): Promise<void> {
  expect((await call(`${base}/agents`, { method: 'POST', key, contentType: 'application/json', body: JSON.stringify({ id, name, source_runtime: 'openclaw' }) })).status).toBe(201);
  expect((await call(`${base}/agents/${id}/snapshot`, { method: 'PUT', key, contentType: OCTET, body: await snapshotBytes(id) })).status).toBe(201);
}

/** A GET of the local owner, who sees every agent on loopback; a page as a browser asks for it (`/agents/…` is the protocol's otherwise). */
const get = (url: string) => raw(`${base}${url}`, url.startsWith('/api/') ? {} : { headers: { accept: 'text/html' } });

/** Answers of 500 or more among `urls`. */
async function failures(urls: string[]): Promise<string[]> {
  const bad: string[] = [];
  for (const url of urls) {
    const reply = await get(url);
    if (reply.status >= 500) bad.push(`${reply.status} ${url}: ${reply.text.slice(0, 300)}`);
  }
  return bad;
}

const enc = encodeURIComponent;
/** What each upload taken is checked with: the agent's lists and workspace at the new sequence. */
const afterUpload = (seq: number) => {
  const A = `/api/agents/${hostile}`;
  return [
    A, `${A}/records?at=${seq}`, `${A}/records?at=${seq}&sort=changed`, `${A}/sequences/${seq}`, `${A}/sequences/${seq}/ops?op=create`,
    `${A}/sequences/${seq}/ops?op=update`, `${A}/sequences/${seq}/raw`, `${A}/compare?from=${Math.max(0, seq - 1)}&to=${seq}`,
    `${A}/workspace?seq=${seq}`, `${A}/workspace/records?seq=${seq}`, `${A}/workspace/file?seq=${seq}&path=MEMORY.md`, `${A}/workspace/download?seq=${seq}&format=tar.gz`,
  ];
};
/** Every API route of the agent at `seq`, and the fleet's. */
const apiUrls = (seq: number) => {
  const A = `/api/agents/${hostile}`;
  return [
    '/api/agents', A, `${A}/records?at=${seq}`, `${A}/records?at=${seq}&sort=changed`, `${A}/records?at=${seq}&q=fact`, `${A}/sequences`,
    `${A}/sequences/${seq}`, ...['create', 'update', 'delete', 'move'].map((op) => `${A}/sequences/${seq}/ops?op=${op}`), `${A}/sequences/${seq}/raw`,
    `${A}/compare?from=${Math.max(0, seq - 1)}&to=${seq}`, `${A}/workspace?seq=${seq}`, `${A}/workspace/records?seq=${seq}`, `${A}/workspace/database?seq=${seq}`,
    ...['tar.gz', 'zip', 'alf'].map((f) => `${A}/workspace/download?seq=${seq}&format=${f}`),
    ...['MEMORY.md', 'memory/a.md', 'memory/2026-01-15.md', 'memory/undated.md'].flatMap((p) => [`${A}/workspace/file?seq=${seq}&path=${enc(p)}`, `${A}/workspace/blame?seq=${seq}&path=${enc(p)}`]),
    `${A}/at?time=2099-01-01T00:00:00Z`, '/api/changes?since=2000-01-01', `/api/changes?since=2000-01-01&agent=${hostile}`, '/api/search?q=fact', '/api/search?q=fuzz*',
  ];
};

beforeAll(async () => {
  served = await serveTwoTenants();
  ({ url: base, keys } = served);
  await register(keys.a, hostile, 'hostile');
  await register(keys.b, healthy, 'healthy-neighbour');
  for (let n = 1; n <= 3; n++) touched.add(String(record(hostile, n).id));
}, 900_000);

afterAll(async () => {
  await served?.stop();
});

type Entry = { operation: 'create' | 'update' | 'delete'; record: Record<string, unknown>; what: string };
const bad: string[] = [];
const statuses: Record<number, number> = {};
const known: string[] = [];
let created = 0;

/** A record of the hostile agent: created anew, or an update or delete of one it has. */
function hostileRecord(operation: Entry['operation'], namespace: string, pickKnown: () => string): Record<string, unknown> {
  const rec = record(hostile, 1, `fuzz content ${created} fact\n\n## more\ntext`) as unknown as Record<string, unknown>;
  rec.id = operation === 'create' ? `0190a000-0000-7000-8000-${(0x5000 + created++).toString(16).padStart(12, '0')}` : pickKnown();
  rec.namespace = namespace;
  return rec;
}

/** The delta's bytes: our writer's, or — where it refuses (a required field of the wrong type, an id twice) — a zip of the lines as a client that is not ours sends them. */
async function deltaOf(entries: readonly Entry[], rawChanged: Map<string, Uint8Array>, rawDeleted: string[]): Promise<Uint8Array> {
  const manifest = { alf_version: '1.0.0', created_at: '2026-05-02T00:00:00Z', agent: { id: hostile, source_runtime: 'openclaw' }, sync: { base_sequence: latest, new_sequence: 0 }, changes: {} };
  try {
    return await writeDelta({ manifest, entries, layers: {}, rawChanged, rawDeleted } as unknown as Parameters<typeof writeDelta>[0]);
  } catch {
    return craftZip([
      { name: 'memory/delta.jsonl', data: entries.map((e) => `${JSON.stringify({ operation: e.operation, ...e.record })}\n`).join('') },
      ...[...rawChanged].map(([name, data]) => ({ name, data })),
      { name: 'delta-manifest.json', data: JSON.stringify(manifest) },
    ]);
  }
}

/**
 * Uploads `entries` as one delta; a refused one (4xx in words, nothing else) is split and its
 * halves sent again, down to one record, so every record the server takes gets in. After each
 * upload taken, every API route of the agent at the new sequence is asked.
 */
async function upload(entries: Entry[], rawChanged = new Map<string, Uint8Array>(), rawDeleted: string[] = []): Promise<void> {
  const reply = await call(`${base}/agents/${hostile}/deltas?base_sequence=${latest}`, { method: 'POST', key: keys.a, contentType: OCTET, body: await deltaOf(entries, rawChanged, rawDeleted) });
  statuses[reply.status] = (statuses[reply.status] ?? 0) + 1;
  const what = entries.map((e) => e.what).join(' ; ');
  if (reply.status >= 500) bad.push(`upload of [${what}]: ${reply.status} ${reply.text.slice(0, 300)}`);
  if (reply.status !== 201) {
    expect(reply.json, `[${what}]: ${reply.text}`).toEqual({ error: expect.any(String) });
    if (entries.length > 1) {
      const half = Math.ceil(entries.length / 2);
      await upload(entries.slice(0, half), rawChanged, rawDeleted);
      await upload(entries.slice(half));
    }
    return;
  }
  latest += 1;
  for (const e of entries) {
    if (typeof e.record.id !== 'string') continue;
    touched.add(e.record.id);
    if (!known.includes(e.record.id)) known.push(e.record.id);
  }
  bad.push(...(await failures(afterUpload(latest))).map((b) => `after [${what}]: ${b}`));
}

describe('records holding hostile values', () => {
  it('each value in each field the readers do not require: taken or refused in words, and no route of the agent answers a 5xx', async () => {
    known.push(...touched);
    let n = 0;
    // The times are checked strictly at ingest (tests/server/hostile.test.ts, hostile-fields.test.ts): here the other optional fields.
    const entries: Entry[] = OPTIONAL.filter((field) => !field.startsWith('temporal.')).flatMap((field) => VALUES.map((value) => {
      const operation = n % 3 === 2 ? 'update' : 'create';
      const rec = hostileRecord(operation, NAMESPACES[n++ % NAMESPACES.length]!, () => known[n % known.length]!);
      setField(rec, field, value);
      return { operation, record: rec, what: `${operation} ${String(rec.id)} ${field}=${JSON.stringify(value)?.slice(0, 40)}` };
    }));
    for (let i = 0; i < entries.length; i += 48) await upload(entries.slice(i, i + 48));
    expect(bad).toEqual([]);
    expect(statuses[201]).toBeGreaterThan(20);
  });

  it('random mixes, the required fields too, beside raw files of odd names: taken or refused in words, no 5xx', async () => {
    const rand = prng(SEED);
    const pick = <T>(items: readonly T[]): T => items[Math.floor(rand() * items.length)]!;
    for (let i = 0; i < UPLOADS; i++) {
      const entries = Array.from({ length: 1 + Math.floor(rand() * 3) }, (): Entry => {
        const operation = pick(['create', 'create', 'update', 'delete'] as const);
        const rec = hostileRecord(operation, pick(NAMESPACES), () => pick(known));
        const mutations = Array.from({ length: 1 + Math.floor(rand() * 3) }, () => [pick(rand() < 0.15 ? REQUIRED : OPTIONAL), pick(VALUES)] as const);
        for (const [field, value] of mutations) setField(rec, field, value);
        return { operation, record: rec, what: `${operation} ${String(rec.id)} ${mutations.map(([f, v]) => `${f}=${JSON.stringify(v)?.slice(0, 40)}`).join(', ')}` };
      });
      const rawChanged = new Map<string, Uint8Array>();
      if (rand() < 0.5) rawChanged.set(pick(RAW), Buffer.from(pick(RAW_BYTES)));
      await upload(entries, rawChanged, rand() < 0.1 ? ['raw/openclaw/nope.md'] : []);
    }
    expect(bad).toEqual([]);
    expect(statuses[400]).toBeGreaterThan(2);
  });

  it('every page of the agent, every API route at every sequence, its records, its restore and its downloads answer without a 5xx', async () => {
    const A = `/agents/${hostile}`;
    const sampled = Array.from({ length: 8 }, (_, k) => Math.round((latest * k) / 7));
    const urls = [
      ...apiUrls(latest),
      ...Array.from({ length: latest + 1 }, (_, seq) => [`/api${A}/sequences/${seq}`, `/api${A}/sequences/${seq}/ops?op=delete`, `/api${A}/workspace/download?seq=${seq}&format=zip`]).flat(),
      ...[...touched].map((id) => `/api${A}/records/${enc(id)}`),
      '/', A, `${A}/workspace`, `${A}/compare?from=0&to=${latest}`, '/search?q=fact', '/search?q=%3Cscript%3E',
      ...sampled.flatMap((seq) => [`${A}/sequences/${seq}`, `${A}/workspace?seq=${seq}`]),
      ...[...touched].slice(0, 40).map((id) => `${A}/memories/${enc(id)}`),
    ];
    expect(await failures(urls)).toEqual([]);
    // The protocol's restore: the plan and every archive it names.
    const plan = await call(`${base}/agents/${hostile}/restore`, { key: keys.a });
    expect(plan.status).toBe(200);
    for (const link of [plan.json.snapshot, ...plan.json.deltas].filter(Boolean) as { url: string }[]) expect((await fetch(link.url)).status).toBe(200);
    // No page drew the uploaded markup as markup.
    for (const url of ['/', A, `${A}/sequences/${latest}`, '/search?q=script']) {
      const page = await get(url);
      expect(page.status, url).toBe(200);
      expect(page.text).not.toMatch(/<script>alert|<img src=x/);
    }
  });

  it('another tenant\'s agent, the change feed and search are unharmed', async () => {
    const B = `/agents/${healthy}`;
    for (const url of [B, `${B}/workspace`, `${B}/sequences/0`, `/api${B}/records?at=0`, `/api${B}`, '/api/changes?since=2000-01-01', '/api/search?q=fact']) {
      const reply = await get(url);
      expect(reply.status, `${url}: ${reply.text.slice(0, 300)}`).toBe(200);
    }
    const records = await call(`${base}/api${B}/records?at=0`);
    expect(records.json.items.map((r: { record_id: string }) => r.record_id).sort()).toEqual([1, 2, 3].map((n) => String(record(healthy, n).id)).sort());
    // Tenant B's key sees its own agent whole, and nothing of A's.
    expect((await call(`${base}/agents/${healthy}`, { key: keys.b })).status).toBe(200);
    expect((await call(`${base}/agents/${hostile}`, { key: keys.b })).status).toBe(404);
  });
});
