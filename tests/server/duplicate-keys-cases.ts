/**
 * Record lines and manifests that hold a key twice in one object, written as text (JSON.stringify
 * cannot), for tests/server/hostile-fields.test.ts (SQLite) and scale-out-hostile-fields.test.ts
 * (PostgreSQL + radosgw). The reference reader (serde derive) refuses a known field given twice —
 * plain or spelled with `\u` escapes — at every level it types (the record, `source`, `temporal`,
 * an entity, an embedding, a related record, a delta line's `operation`, the manifests' structs),
 * so ingest must refuse it, naming the record and the key, and store nothing. What it reads —
 * an unknown key twice, a key twice inside `raw_source_format`, the same key in two different
 * objects, a key's name inside a string value — ingest takes.
 */
import { expect } from 'vitest';
import { validateArchive } from '@/lib/core/validate';
import type { Reply } from './harness';
import type { HostileUploader, Rec } from './hostile-fields-cases';

const OTHER = '0190a000-0000-7000-8000-00000000ffff';
const TIME = '2026-01-15T10:00:00Z';

/** `json` with `text` put right after the first `after` (an object's opening, `{` or `"source":{`). */
function insert(json: string, after: string, text: string): string {
  const at = json.indexOf(after);
  if (at < 0) throw new Error(`no ${after} in ${json}`);
  return `${json.slice(0, at + after.length)}${text}${json.slice(at + after.length)}`;
}

/** A record line case: fields set on the record, then its line (`json`, with any `operation`) rewritten. */
export interface LineCase {
  name: string;
  fields?: Rec;
  line: (json: string) => string;
  /** Refused cases: the key and where, as the refusal says it (`key "origin" in source`). */
  says?: string;
  /** Only as a delta line (an `operation` key), or only as a snapshot's. */
  only?: 'delta' | 'snapshot';
}

const ENTITIES = { entities: [{ name: 'Jane', type: 'person' }, { name: 'Acme', type: 'organization', role: 'employer' }] };
const EMBEDDINGS = { embeddings: [{ model: 'm/e', dimensions: 2, vector: [0.5, 1], computed_at: TIME, source: 'runtime' }] };
const RELATED = { related_records: [{ id: OTHER, relation: 'caused_by' }] };

/** Lines the reference reader refuses: a known field twice in one of its structs. */
export const REFUSED_LINES: LineCase[] = [
  { name: 'content twice', line: (j) => insert(j, '{', '"content":"first",'), says: 'key "content" appears twice' },
  { name: 'content twice, once escaped', line: (j) => insert(j, '{', '"\\u0063ontent":"first",'), says: 'key "content" appears twice' },
  { name: 'id twice, escaped wholly', line: (j) => insert(j, '{', `"\\u0069\\u0064":"${OTHER}",`), says: 'key "id" appears twice' },
  { name: 'agent_id twice, the same value', line: (j) => j.replace(/"agent_id":("[^"]*"),/, '"agent_id":$1,"agent_id":$1,'), says: 'key "agent_id" appears twice' },
  { name: 'namespace twice', line: (j) => j.replace(/}$/, ',"namespace":"other"}'), says: 'key "namespace" appears twice' },
  { name: 'source.origin twice', line: (j) => insert(j, '"source":{', '"origin":"elsewhere",'), says: 'key "origin" in source appears twice' },
  { name: 'source.runtime twice, escaped', line: (j) => insert(j, '"source":{', '"r\\u0075ntime":"zeroclaw",'), says: 'key "runtime" in source appears twice' },
  { name: 'temporal.created_at twice', line: (j) => insert(j, '"temporal":{', `"created_at":"2020-01-01T00:00:00Z",`), says: 'key "created_at" in temporal appears twice' },
  { name: 'an entity\'s name twice', fields: ENTITIES, line: (j) => insert(j, '{"name":"Acme",', '"name":"Other",'), says: 'key "name" in entities[1] appears twice' },
  { name: 'an embedding\'s model twice', fields: EMBEDDINGS, line: (j) => insert(j, '[{"model":"m/e",', '"\\u006dodel":"x/y",'), says: 'key "model" in embeddings[0] appears twice' },
  { name: 'a related record\'s id twice', fields: RELATED, line: (j) => insert(j, `[{"id":"${OTHER}",`, `"id":"${OTHER}",`), says: 'key "id" in related_records[0] appears twice' },
  { name: 'operation twice', only: 'delta', line: (j) => insert(j, '{', '"operation":"delete",'), says: 'key "operation" appears twice' },
];

/** Lines the reference reader reads (and `JSON.parse` takes the same way): taken. */
export const TAKEN_LINES: LineCase[] = [
  { name: 'a key\'s quoted name in string values', fields: { content: 'say "content": "x", "id": 1', tags: ['content', 'content', 'id'] }, line: (j) => j },
  { name: 'the same key in different objects', fields: { ...ENTITIES, ...RELATED, raw_source_format: { origin: 'a', id: 'b', source: { origin: 'c' } } }, line: (j) => j },
  { name: 'an unknown key twice (the last taken)', line: (j) => insert(j, '{', '"x_note":"first","x_note":"second",') },
  { name: 'a key twice inside raw_source_format (a Value: the last taken)', fields: { raw_source_format: { heading: 'Fact' } }, line: (j) => insert(j, '"raw_source_format":{', '"heading":"Other",') },
  { name: 'a key twice in an unknown key\'s object', line: (j) => insert(j, '{', '"x_meta":{"id":1,"id":2},') },
  { name: 'escaped keys, each once', line: (j) => j.replace('"namespace":', '"n\\u0061mespace":').replace('{', '{"\\u00e9t\\u00e9":1,') },
  { name: 'operation in a snapshot line, twice (an unknown key there)', only: 'snapshot', line: (j) => insert(j, '{', '"operation":"a","operation":"b",') },
];

/** A manifest case: the manifest's JSON rewritten. */
export interface ManifestCase {
  name: string;
  how: 'delta' | 'snapshot';
  manifest: (json: string) => string;
  says?: string;
}

export const REFUSED_MANIFESTS: ManifestCase[] = [
  { name: 'created_at twice', how: 'snapshot', manifest: (j) => insert(j, '{', '"created_at":"2026-04-01T00:00:00Z",'), says: 'manifest.json: key "created_at" appears twice' },
  { name: 'agent.name twice', how: 'snapshot', manifest: (j) => insert(j, '"agent":{', '"n\\u0061me":"other",'), says: 'manifest.json: key "name" in agent appears twice' },
  { name: 'a partition\'s sealed twice', how: 'snapshot', manifest: (j) => insert(j, '"partitions":[{', '"sealed":true,'), says: 'manifest.json: key "sealed" in layers.memory.partitions[0] appears twice' },
  { name: 'sync.base_sequence twice', how: 'delta', manifest: (j) => j.replace(/"base_sequence":(\d+)/, '"base_sequence":$1,"base_sequence":$1'), says: 'delta-manifest.json: key "base_sequence" in sync appears twice' },
  { name: 'changes.memory.file twice', how: 'delta', manifest: (j) => insert(j, '"memory":{', '"file":"memory/delta.jsonl",'), says: 'delta-manifest.json: key "file" in changes.memory appears twice' },
  { name: 'changes.raw twice', how: 'delta', manifest: (j) => insert(j, '"changes":{', '"raw":{"deleted":[]},"raw":{"changed":[]},'), says: 'delta-manifest.json: key "raw" in changes appears twice' },
];

export const TAKEN_MANIFESTS: ManifestCase[] = [
  { name: 'an unknown key twice', how: 'snapshot', manifest: (j) => insert(j, '{', '"x_tool":"a","x_tool":"b",') },
  { name: 'an unknown key twice in agent', how: 'delta', manifest: (j) => insert(j, '"agent":{', '"x_tool":"a","x_tool":"b",') },
];

/** `rec` with `fields` set (top level). */
const withFields = (rec: Rec, fields: Rec | undefined): Rec => ({ ...rec, ...fields });

/** A line of `rec` as it goes in a delta (`operation` first) or a snapshot. */
const lineOf = (how: 'delta' | 'snapshot', rec: Rec): string => JSON.stringify(how === 'delta' ? { operation: 'create', ...rec } : rec);

/**
 * Each case, as a delta and a snapshot (as it allows), each case's line after a good one (its record
 * the second): what did not come as the expected answer. A refused case: 400, `{"error"}` alone,
 * naming the place (`entry 2` / `record 2`), the record's id and the key; taken: 201.
 */
export async function lineVerdicts(uploader: HostileUploader, cases: LineCase[], refused: boolean): Promise<string[]> {
  const wrong: string[] = [];
  for (const c of cases) {
    for (const how of ['delta', 'snapshot'] as const) {
      if (c.only !== undefined && c.only !== how) continue;
      const good = uploader.recordWith('tags', ['fine']);
      const rec = withFields(uploader.recordWith('tags', ['case']), c.fields);
      const reply = await uploader.uploadLines(how, [lineOf(how, good), c.line(lineOf(how, rec))]);
      const place = how === 'delta' ? 'memory/delta.jsonl entry 2: ' : 'record 2: ';
      const shown = `${how} ${c.name}`;
      if (!refused) {
        if (reply.status !== 201) wrong.push(`${shown}: ${reply.status} ${reply.text.slice(0, 300)}`);
        continue;
      }
      const error = String(reply.json?.error);
      if (reply.status !== 400 || Object.keys(reply.json ?? {}).join() !== 'error') wrong.push(`${shown}: ${reply.status} ${reply.text.slice(0, 300)}`);
      else if (!error.includes(`${place}${c.says!}`) || !error.includes(`the record's id ${String(rec.id)}`)) wrong.push(`${shown}: ${error}`);
    }
  }
  return wrong;
}

/** Each manifest case (refused: 400 saying `says`; taken: 201): what did not answer so. */
export async function manifestVerdicts(uploader: HostileUploader, cases: ManifestCase[], refused: boolean): Promise<string[]> {
  const wrong: string[] = [];
  for (const c of cases) {
    const reply: Reply = await uploader.uploadLines(c.how, [lineOf(c.how, uploader.recordWith('tags', ['fine']))], c.manifest);
    if (refused ? reply.status !== 400 || !String(reply.json?.error).includes(c.says!) : reply.status !== 201) {
      wrong.push(`${c.how} ${c.name}: ${reply.status} ${reply.text.slice(0, 300)}`);
    }
  }
  return wrong;
}

/**
 * `lineage validate`'s verdict on each case as a snapshot (a delta for a delta-only case or
 * manifest): the cases it calls valid when refused, or invalid when taken.
 */
export async function validatorDisagreements(uploader: HostileUploader, lines: LineCase[], manifests: ManifestCase[], refused: boolean): Promise<string[]> {
  const wrong: string[] = [];
  const archives: [string, Uint8Array][] = [
    ...lines.map((c): [string, Uint8Array] => {
      const how = c.only ?? 'snapshot';
      const line = c.line(lineOf(how, withFields(uploader.recordWith('tags', ['case']), c.fields)));
      return [c.name, how === 'delta' ? uploader.deltaOfLines([line], 1) : uploader.snapshotOfLines([line])];
    }),
    ...manifests.map((c): [string, Uint8Array] => {
      const line = lineOf(c.how, uploader.recordWith('tags', ['fine']));
      return [c.name, c.how === 'delta' ? uploader.deltaOfLines([line], 1, c.manifest) : uploader.snapshotOfLines([line], c.manifest)];
    }),
  ];
  for (const [name, bytes] of archives) {
    const verdict = await validateArchive(bytes);
    if (verdict.valid === refused) wrong.push(`${name}: ${JSON.stringify(verdict.errors).slice(0, 300)}`);
  }
  return wrong;
}

/** Expects `wrong` empty. */
export const none = (wrong: string[]) => expect(wrong).toEqual([]);
