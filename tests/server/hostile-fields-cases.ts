/**
 * What tests/server/hostile-fields.test.ts (SQLite, with the dashboard) and
 * scale-out-hostile-fields.test.ts (PostgreSQL + radosgw) push through a real server: record fields
 * of the wrong JSON type, each of which ingest must refuse naming the field (the reference reader
 * refuses them: CONTRACT §4.1), and values the reference reader takes as they come, which must be
 * stored and shown as text.
 */
import { expect } from 'vitest';
import { craftZip } from '@/lib/core/archive/testing/craft-zip';
import { record } from './archives';
import { call, type Reply } from './harness';

export const OCTET = 'application/octet-stream';
export const MARKUP = '<script>alert(1)</script><img src=x onerror=alert(2)>';
const LONG = 'x'.repeat(200_000);
const TIME = '2026-01-15T10:00:00Z';
const OTHER = '0190a000-0000-7000-8000-00000000ffff';

export type Rec = Record<string, unknown>;
/** A member added to an archive, its bytes given as text. */
export type ArchiveFile = { name: string; data: string };
/** Sets `field` (a dotted path) of `rec` to `value`. */
function setField(rec: Rec, field: string, value: unknown): Rec {
  const parts = field.split('.');
  let at = rec;
  for (const key of parts.slice(0, -1)) {
    if (at[key] === null || typeof at[key] !== 'object') at[key] = {};
    at = at[key] as Rec;
  }
  at[parts.at(-1)!] = value;
  return rec;
}

/** The value at `field` (a dotted path) of `rec`. */
export const fieldOf = (rec: unknown, field: string): unknown => field.split('.').reduce<unknown>((v, key) => (v as Rec)[key], rec);

const enc = encodeURIComponent;
/** Every page and dashboard API route that shows `agent`'s records at `seq` (and `seq - 1`), `ids` among them. */
export function routesOf(agent: string, seq: number, ids: readonly string[]): string[] {
  const A = `/agents/${agent}`;
  return [
    '/', A, `${A}/workspace`, `${A}/workspace?seq=${seq}`, `${A}/sequences/${seq}`, `${A}/sequences/${seq - 1}`, `${A}/compare?from=0&to=${seq}`,
    `${A}/compare?from=${seq - 1}&to=${seq}`, '/search?q=fact', '/search?q=%3Cscript%3E',
    ...ids.map((id) => `${A}/memories/${enc(id)}`),
    '/api/agents', `/api${A}`, `/api${A}/records?at=${seq}`, `/api${A}/records?at=${seq}&sort=changed`, `/api${A}/records?at=${seq}&q=fact`,
    `/api${A}/records?at=${seq}&q=script`, `/api${A}/sequences`, ...[seq - 1, seq].map((s) => `/api${A}/sequences/${s}`),
    ...['create', 'update', 'delete', 'move'].map((op) => `/api${A}/sequences/${seq}/ops?op=${op}`), `/api${A}/sequences/${seq}/raw`,
    `/api${A}/compare?from=0&to=${seq}`, `/api${A}/compare?from=${seq - 1}&to=${seq}`, `/api${A}/workspace?seq=${seq}`, `/api${A}/workspace/records?seq=${seq}`,
    `/api${A}/workspace/database?seq=${seq}`, ...['tar.gz', 'zip', 'alf'].map((f) => `/api${A}/workspace/download?seq=${seq}&format=${f}`),
    ...['MEMORY.md', `memory/${MARKUP}.md`].flatMap((p) => [`/api${A}/workspace/file?seq=${seq}&path=${enc(p)}`, `/api${A}/workspace/blame?seq=${seq}&path=${enc(p)}`]),
    ...ids.map((id) => `/api${A}/records/${enc(id)}`),
    `/api${A}/at?time=2099-01-01T00:00:00Z`, '/api/changes?since=2000-01-01', `/api/changes?since=2000-01-01&agent=${agent}`, '/api/search?q=fact', '/api/search?q=script',
  ];
}

/** The answers among `urls` of 500 or more, and the pages that draw the uploaded markup as markup. */
export async function pageFailures(get: (url: string) => Promise<{ status: number; text: string }>, urls: readonly string[]): Promise<string[]> {
  const failures: string[] = [];
  for (const url of urls) {
    const reply = await get(url);
    if (reply.status >= 500) failures.push(`${reply.status} ${url}: ${reply.text.slice(0, 300)}`);
    else if (!url.startsWith('/api/') && /<script>alert|<img src=x/.test(reply.text)) failures.push(`${url} draws the markup as markup`);
  }
  return failures;
}

/** One agent's uploads through the protocol of the server at `base`, with its tenant's key. */
export class HostileUploader {
  private made = 0;

  constructor(private readonly base: string, readonly agent: string, private readonly key: string) {}

  /** A fresh record of the agent with `field` set to `value`. */
  recordWith(field: string, value: unknown): Rec {
    const rec = structuredClone(record(this.agent, 1, `field case ${this.made} fact`)) as unknown as Rec;
    rec.id = `0190a000-0000-7000-8000-${(0x7000 + this.made++).toString(16).padStart(12, '0')}`;
    return setField(rec, field, value);
  }

  /** The bytes of a delta on `baseSequence` creating `records`, zipped as a client that is not ours may send it. */
  deltaOf(records: Rec[], baseSequence: number): Uint8Array {
    return this.deltaOfLines(records.map((r) => JSON.stringify({ operation: 'create', ...r })), baseSequence);
  }

  /**
   * The same with its `memory/delta.jsonl` lines given as text, its manifest's JSON rewritten by
   * `manifest`, and `files` (layer documents, as text) added.
   */
  deltaOfLines(lines: string[], baseSequence: number, manifest: (json: string) => string = (json) => json, files: ArchiveFile[] = []): Uint8Array {
    const document = {
      alf_version: '1.0.0', created_at: '2026-05-02T00:00:00Z', agent: { id: this.agent, source_runtime: 'openclaw' },
      sync: { base_sequence: baseSequence, new_sequence: 0 }, changes: { memory: { file: 'memory/delta.jsonl', record_count: lines.length } },
    };
    return craftZip([
      { name: 'memory/delta.jsonl', data: lines.map((line) => `${line}\n`).join('') },
      ...files,
      { name: 'delta-manifest.json', data: manifest(JSON.stringify(document)) },
    ]);
  }

  /** The bytes of a snapshot holding `records` (in one partition) and a MEMORY.md. */
  snapshotOf(records: Rec[]): Uint8Array {
    return this.snapshotOfLines(records.map((r) => JSON.stringify(r)));
  }

  /** The same with its partition's lines given as text, its manifest's JSON rewritten by `manifest`, and `files` added. */
  snapshotOfLines(lines: string[], manifest: (json: string) => string = (json) => json, files: ArchiveFile[] = []): Uint8Array {
    const document = {
      alf_version: '1.0.0', created_at: '2026-05-01T00:00:00Z', agent: { id: this.agent, name: 'hostile', source_runtime: 'openclaw' },
      layers: { memory: { record_count: lines.length, index_file: 'memory/index.json', partitions: [{ file: 'memory/2026-Q1.jsonl', from: '2026-01-01', to: '2026-03-31', record_count: lines.length, sealed: false }] } },
    };
    return craftZip([
      { name: 'memory/2026-Q1.jsonl', data: lines.map((line) => `${line}\n`).join('') },
      { name: 'raw/openclaw/MEMORY.md', data: '# Memory\n\n## Fact\n' },
      ...files,
      { name: 'manifest.json', data: manifest(JSON.stringify(document)) },
    ]);
  }

  async latestSequence(): Promise<number> {
    const reply = await call(`${this.base}/agents/${this.agent}`, { key: this.key });
    expect(reply.status).toBe(200);
    return reply.json.latest_sequence as number;
  }

  /** {@link upload} of lines given as text (see {@link deltaOfLines}, {@link snapshotOfLines}). */
  async uploadLines(how: 'delta' | 'snapshot', lines: string[], manifest?: (json: string) => string, files?: ArchiveFile[]): Promise<Reply> {
    const { base, agent, key } = this;
    if (how === 'snapshot') return call(`${base}/v1/agents/${agent}/snapshot`, { method: 'PUT', key, contentType: OCTET, body: this.snapshotOfLines(lines, manifest, files) });
    const seq = await this.latestSequence();
    return call(`${base}/v1/agents/${agent}/deltas?base_sequence=${seq}`, { method: 'POST', key, contentType: OCTET, body: this.deltaOfLines(lines, seq, manifest, files) });
  }

  async upload(how: 'delta' | 'snapshot', records: Rec[]): Promise<Reply> {
    return this.uploadLines(how, records.map((r) => JSON.stringify(how === 'delta' ? { operation: 'create', ...r } : r)));
  }

  /**
   * Each case of {@link REFUSED}, as a delta and as a snapshot, beside a good record: what was not
   * refused with a 400 whose `{"error"}` (and nothing else) says the words expected, and nothing more.
   */
  async refusals(): Promise<string[]> {
    const wrong: string[] = [];
    for (const [field, value, says] of [...REFUSED, ...REFUSED_PAST_READER]) {
      for (const how of ['delta', 'snapshot'] as const) {
        const reply = await this.upload(how, [this.recordWith('tags', ['fine']), this.recordWith(field, value)]);
        const shown = `${how} ${field}=${JSON.stringify(value)?.slice(0, 60)}`;
        if (reply.status !== 400) wrong.push(`${shown}: ${reply.status} ${reply.text.slice(0, 200)}`);
        else if (!says.test(String(reply.json?.error)) || Object.keys(reply.json).join() !== 'error') wrong.push(`${shown}: ${reply.text.slice(0, 300)}`);
      }
    }
    return wrong;
  }

  /** Uploads every case of {@link TAKEN}: half as a snapshot, half as a delta on it; the records uploaded with their fields. */
  async takeAll(): Promise<{ field: string; rec: Rec }[]> {
    const taken = TAKEN.map(([field, value]) => ({ field, rec: this.recordWith(field, value) }));
    const half = Math.ceil(taken.length / 2);
    const snap = await this.upload('snapshot', taken.slice(0, half).map((t) => t.rec));
    expect(snap.status, snap.text.slice(0, 300)).toBe(201);
    const delta = await this.upload('delta', taken.slice(half).map((t) => t.rec));
    expect(delta.status, delta.text.slice(0, 300)).toBe(201);
    return taken;
  }
}

/** Field, value, and the words the refusal must say (the field's path). */
/** A case of an archive an upload carries: `how` it goes, its `name`, and, refused, what the 400 `says`. */
export interface UploadCase {
  how: 'delta' | 'snapshot';
  name: string;
  says?: string;
}

/**
 * Each case uploaded by `upload`: refused, a 400 whose body is `{"error"}` alone, saying `refused: <says>`;
 * taken, a 201, and the agent's AgentInfo (its `layer_counts`, the fold of its layers) answering 200.
 * What went otherwise, one line each.
 */
export async function uploadVerdicts<C extends UploadCase>(
  uploader: HostileUploader, base: string, key: string, cases: readonly C[], refused: boolean, upload: (c: C) => Promise<Reply>,
): Promise<string[]> {
  const wrong: string[] = [];
  for (const c of cases) {
    const reply = await upload(c);
    const shown = `${c.how} ${c.name}`;
    if (!refused) {
      if (reply.status !== 201) wrong.push(`${shown}: ${reply.status} ${reply.text.slice(0, 300)}`);
      const info = await call(`${base}/v1/agents/${uploader.agent}`, { key });
      if (info.status !== 200) wrong.push(`${shown}: GET agent ${info.status} ${info.text.slice(0, 300)}`);
    } else if (reply.status !== 400 || Object.keys(reply.json ?? {}).join() !== 'error' || !String(reply.json.error).includes(`refused: ${c.says!}`)) {
      wrong.push(`${shown}: ${reply.status} ${reply.text.slice(0, 300)}`);
    }
  }
  return wrong;
}

/**
 * Refused by ingest past what the reference reader refuses, where a ledger could not serve what it
 * stored (README, "ingest's own rules"): `lineage validate` warns of these, it does not call them
 * invalid. The record's own id in a form other than CONTRACT §4.2's lowercase hyphenated one: records
 * are keyed by their id's text, so one UUID in two forms would be two records.
 */
export const REFUSED_PAST_READER: [string, unknown, RegExp][] = [
  ['id', OTHER.toUpperCase(), /record id "0190A000-0000-7000-8000-00000000FFFF" is not in the lowercase hyphenated form 8-4-4-4-12/],
  ['id', `urn:uuid:${OTHER}`, /record id "urn:uuid:0190a000-0000-7000-8000-00000000ffff" is not in the lowercase hyphenated form/],
];

export const REFUSED: [string, unknown, RegExp][] = [
  // Optional fields the reference reader types.
  ['tags', 'a tag', /tags "a tag" is not an array of strings/],
  ['tags', 7, /tags 7 is not an array/],
  ['tags', { a: 1 }, /tags \{"a":1\} is not an array/],
  ['tags', null, /tags null is not an array/],
  ['tags', ['ok', 1], /tags\[1\] 1 is not a string/],
  ['tags', ['ok', null], /tags\[1\] null is not a string/],
  ['tags', [['nested']], /tags\[0\] \["nested"\] is not a string/],
  ['tags', [LONG.slice(0, 10), { x: LONG }], /tags\[1\] \{"x":"x{60,}… \(\d+ more characters\) is not a string/],
  ['category', 5, /category 5 is not a string/],
  ['category', ['core'], /category \["core"\] is not a string/],
  ['supersedes', 'not a uuid', /supersedes "not a uuid" is not a UUID/],
  ['supersedes', 42, /supersedes 42 is not a UUID/],
  ['confidence', '0.9', /confidence "0.9" is not a number/],
  ['confidence', { v: 1 }, /confidence \{"v":1\} is not a number/],
  ['entities', 'Jane', /entities "Jane" is not an array of objects/],
  ['entities', ['Jane'], /entities\[0\] "Jane" is not an object/],
  ['entities', [{ name: 'Jane' }], /entities\[0\]\.type is missing/],
  ['entities', [{ name: 3, type: 'person' }], /entities\[0\]\.name 3 is not a string/],
  ['entities', [{ name: 'Jane', type: 'person', role: ['boss'] }], /entities\[0\]\.role \["boss"\] is not a string/],
  ['embeddings', { model: 'm' }, /embeddings \{"model":"m"\} is not an array of objects/],
  ['embeddings', [{ model: 'm', dimensions: 1.5, vector: [1], computed_at: TIME, source: 'runtime' }], /embeddings\[0\]\.dimensions 1\.5 is not a whole number/],
  ['embeddings', [{ model: 'm', dimensions: 1, vector: ['1'], computed_at: TIME, source: 'runtime' }], /embeddings\[0\]\.vector\[0\] "1" is not a number/],
  ['embeddings', [{ model: 'm', dimensions: 1, vector: [1], computed_at: 'yesterday', source: 'runtime' }], /embeddings\[0\]\.computed_at "yesterday" is not an RFC 3339 time/],
  ['embeddings', [{ model: 'm', dimensions: 1, computed_at: TIME, source: 'runtime' }], /embeddings\[0\]\.vector is missing/],
  ['related_records', [{ id: 'x', relation: 'caused_by' }], /related_records\[0\]\.id "x" is not a UUID/],
  ['related_records', [{ id: OTHER, relation: 3 }], /related_records\[0\]\.relation 3 is not a string/],
  ['related_records', OTHER, /related_records "[-0-9a-f]+" is not an array of objects/],
  ['source.origin', 1, /source\.origin 1 is not a string/],
  ['source.origin_file', ['MEMORY.md'], /source\.origin_file \["MEMORY\.md"\] is not a string/],
  ['source.runtime_version', { v: 1 }, /source\.runtime_version \{"v":1\} is not a string/],
  ['source.extraction_method', 7, /source\.extraction_method 7 is not a string/],
  ['source.session_id', 12, /source\.session_id 12 is not a string/],
  ['source.interaction_id', true, /source\.interaction_id true is not a string/],
  ['source.identity_version', -1, /source\.identity_version -1 is not a whole number/],
  ['source.identity_version', '3', /source\.identity_version "3" is not a whole number/],
  ['temporal.access_count', 2.5, /temporal\.access_count 2\.5 is not a whole number/],
  ['temporal.access_count', '3', /temporal\.access_count "3" is not a whole number/],
  ['agent_id', 'agent-7', /agent_id "agent-7" is not a UUID/],
  ['id', 'note-1', /record id "note-1" is not a UUID/],
  // The times (checked before, strictly): numbers and objects too.
  ['temporal.updated_at', 1_700_000_000, /temporal\.updated_at 1700000000 is not an RFC 3339 time/],
  ['temporal.observed_at', { at: TIME }, /temporal\.observed_at \{"at":"2026-01-15T10:00:00Z"\} is not an RFC 3339 time/],
  ['temporal.valid_until', [TIME], /temporal\.valid_until \["2026-01-15T10:00:00Z"\] is not an RFC 3339 time/],
  ['temporal.updated_at', LONG, /temporal\.updated_at "x{70,}… \(\d+ more characters\) is not an RFC 3339 time/],
  // Required fields (the archive readers).
  ['namespace', 7, /namespace: expected a string/],
  ['memory_type', 5, /memory_type: expected a string/],
  ['status', [], /status: expected a string/],
  ['content', { text: 'x' }, /content: expected a string/],
  ['source', 'openclaw', /source\.runtime: expected a string/],
  ['source', ['openclaw'], /source\.runtime: expected a string/],
  ['temporal', TIME, /temporal\.created_at: expected a string/],
  ['temporal.created_at', 1_700_000_000, /temporal\.created_at: expected a string/],
];

/** Field and value the reference reader takes as they are; each must be stored and drawn as text. */
export const TAKEN: [string, unknown][] = [
  ['memory_type', 'dream'], ['memory_type', MARKUP], ['memory_type', LONG], ['status', 'zombie'], ['status', MARKUP],
  ['namespace', MARKUP], ['namespace', LONG], ['content', `${MARKUP}\n\n${LONG}`],
  ['tags', [MARKUP, LONG, '']], ['tags', []], ['category', null], ['category', MARKUP], ['category', LONG],
  ['confidence', 1e308], ['confidence', -5], ['confidence', null],
  ['supersedes', OTHER.toUpperCase()], ['supersedes', `urn:uuid:${OTHER}`], ['supersedes', OTHER.replaceAll('-', '')], ['supersedes', null],
  ['raw_source_format', 'a string'], ['raw_source_format', ['x', 1, null]], ['raw_source_format', 5], ['raw_source_format', null],
  ['raw_source_format', { heading: MARKUP, line_start: 'one', line_end: { deep: [1] }, key: LONG }],
  ['extra_field', { a: [{ b: MARKUP, c: [[[[[[[[[[1]]]]]]]]]] }] }], ['extra_field', LONG],
  ['source.origin_file', `memory/${MARKUP}.md`], ['source.origin', null], ['source.extraction_method', 'dreamt'], ['source.extra', { x: [MARKUP] }],
  ['source.identity_version', 4_294_967_295], ['temporal.access_count', 0], ['temporal.updated_at', null], ['temporal.extra_time', 5],
  ['entities', [{ name: MARKUP, type: 'alien', role: null, extra: [1] }]],
  ['embeddings', [{ model: MARKUP, dimensions: 3, vector: [1, -2.5, 1e300], computed_at: TIME, source: 'elsewhere', extra: {} }]],
  ['related_records', [{ id: OTHER, relation: MARKUP, extra: [] }]],
  // Markup in every other string the record holds, and in the names of unknown keys.
  ['source', { runtime: MARKUP, runtime_version: MARKUP, origin: MARKUP, origin_file: MARKUP, extraction_method: MARKUP, session_id: MARKUP, interaction_id: MARKUP }],
  ['entities', [{ name: 'n', type: MARKUP, role: MARKUP }]],
  ['embeddings', [{ model: 'm', dimensions: 1, vector: [0.5], computed_at: TIME, source: MARKUP }]],
  [MARKUP, { [MARKUP]: MARKUP }], ['raw_source_format', { [MARKUP]: [MARKUP], heading: MARKUP, origin_file: MARKUP }],
];

