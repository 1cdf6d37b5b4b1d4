/**
 * The manifests' known fields, for tests/server/hostile-fields.test.ts (SQLite) and
 * scale-out-hostile-fields.test.ts (PostgreSQL + radosgw). The reference reader reads `manifest.json`
 * and `delta-manifest.json` into typed structs (CONTRACT §3.1/§3.2, the schemas): it refuses a
 * required field missing, a known field of another JSON type, null where no `Option` is; an
 * `Option` struct field (a layer's entry `layers.identity`, `runtime_hints`, a delta's
 * `changes.memory`) takes null as not listed; a partition's `from`/`to` are dates (`NaiveDate`), a
 * layer's and an attachment's counts `u32`s. A delta's memory changes are read only from
 * `memory/delta.jsonl` (CONTRACT §3.2). Ingest must refuse each (400 naming the manifest field;
 * nothing stored) and take what it reads; `lineage validate` must agree.
 */
import { randomUUID } from 'node:crypto';
import { validateArchive } from '@/lib/core/validate';
import { craftZip } from '@/lib/core/archive/testing/craft-zip';
import { setPath } from '@/lib/core/archive/testing/fixtures';
import { readZip, resolveLimits } from '@/lib/core/archive/zip-read';
import { call, type Reply } from './harness';
import { OCTET, uploadVerdicts, type ArchiveFile, type HostileUploader, type Rec } from './hostile-fields-cases';

const TIME = '2026-01-15T10:00:00Z';
/**
 * A delta's `sync.base_timestamp` that says it was built on the head it is sent to: no earlier than that
 * entry's `created_at` (lib/ledger/ingest-base.ts; a delta sent with an older one was built on another
 * entry and is refused). The uploads here make their entries now, so a time past any of them.
 */
const BASE_TIME = '2999-01-15T10:00:00Z';

export interface ManifestFieldCase {
  name: string;
  how: 'snapshot' | 'delta';
  /** Dotted paths (`[n]` for an array item) of the manifest set to a value; `undefined` deletes the field. */
  set: [path: string, value: unknown][];
  /** Files added beside the record's, given the good record's line and the agent. */
  files?: (line: string, agent: string) => ArchiveFile[];
  /** Refused cases: what the refusal says, after `refused: `. */
  says?: string;
  /** The manifest's JSON text edited further, after `set` (a key given twice). */
  edit?: (json: string) => string;
  /** A delta whose manifest is stored as `manifest.json`, the fallback CONTRACT §3.2 allows (read-delta.ts). */
  manifestAs?: 'manifest.json';
}

const rewrite = (c: ManifestFieldCase) => (json: string): string => {
  const doc = JSON.parse(json) as Record<string, unknown>;
  for (const [path, value] of c.set) setPath(doc, path, value);
  return c.edit ? c.edit(JSON.stringify(doc)) : JSON.stringify(doc);
};

const S = 'manifest.json: ';
const D = 'delta-manifest.json: ';
const U64 = 'a whole number 0 or more';
const U32 = 'a whole number 0 to 4294967295';

export const REFUSED_MANIFEST_FIELDS: ManifestFieldCase[] = [
  { name: 'alf_version a number', how: 'snapshot', set: [['alf_version', 1]], says: `${S}alf_version 1 is not a string` },
  { name: 'created_at missing', how: 'snapshot', set: [['created_at', undefined]], says: `${S}created_at is missing` },
  { name: 'created_at a number', how: 'snapshot', set: [['created_at', 12345]], says: `${S}created_at 12345 is not an RFC 3339 time` },
  { name: 'agent.name missing', how: 'snapshot', set: [['agent.name', undefined]], says: `${S}agent.name is missing` },
  { name: 'agent.source_runtime null', how: 'snapshot', set: [['agent.source_runtime', null]], says: `${S}agent.source_runtime null is not a string` },
  { name: 'agent.source_runtime_version a number', how: 'snapshot', set: [['agent.source_runtime_version', 2]], says: `${S}agent.source_runtime_version 2 is not a string` },
  { name: 'runtime_hints without last_model', how: 'snapshot', set: [['runtime_hints', { primary_model: 'anthropic/claude' }]], says: `${S}runtime_hints.last_model is missing` },
  { name: 'sync.last_sequence a string', how: 'snapshot', set: [['sync', { last_sequence: '3' }]], says: `${S}sync.last_sequence "3" is not ${U64}` },
  { name: 'layers missing', how: 'snapshot', set: [['layers', undefined]], says: `${S}layers is missing` },
  { name: 'layers.memory.record_count a string', how: 'snapshot', set: [['layers.memory.record_count', '1']], says: `${S}layers.memory.record_count "1" is not ${U64}` },
  { name: 'layers.memory.index_file missing', how: 'snapshot', set: [['layers.memory.index_file', undefined]], says: `${S}layers.memory.index_file is missing` },
  { name: 'layers.memory.has_embeddings a string', how: 'snapshot', set: [['layers.memory.has_embeddings', 'no']], says: `${S}layers.memory.has_embeddings "no" is not true or false` },
  { name: 'layers.memory.has_raw_source a number', how: 'snapshot', set: [['layers.memory.has_raw_source', 1]], says: `${S}layers.memory.has_raw_source 1 is not true or false` },
  { name: 'a partition\'s sealed a string', how: 'snapshot', set: [['layers.memory.partitions[0].sealed', 'false']], says: `${S}layers.memory.partitions[0].sealed "false" is not true or false` },
  { name: 'a partition\'s record_count negative', how: 'snapshot', set: [['layers.memory.partitions[0].record_count', -1]], says: `${S}layers.memory.partitions[0].record_count -1 is not ${U64}` },
  { name: 'a partition\'s from missing', how: 'snapshot', set: [['layers.memory.partitions[0].from', undefined]], says: `${S}layers.memory.partitions[0].from is missing` },
  {
    name: 'layers.identity.version a string', how: 'snapshot', set: [['layers.identity', { version: '2', file: 'identity.json' }]],
    files: (_, agent) => [{ name: 'identity.json', data: JSON.stringify({ id: randomUUID(), agent_id: agent, version: 2, updated_at: TIME }) }], says: `${S}layers.identity.version "2" is not a whole number 0 to 4294967295`,
  },
  {
    name: 'layers.attachments.count fractional', how: 'snapshot', set: [['layers.attachments', { count: 1.5, file: 'attachments.json' }]],
    files: () => [{ name: 'attachments.json', data: '{"attachments":[]}' }], says: `${S}layers.attachments.count 1.5 is not ${U32}`,
  },
  {
    name: 'layers.attachments.count past a u32', how: 'snapshot', set: [['layers.attachments', { count: 2 ** 32, file: 'attachments.json' }]],
    files: () => [{ name: 'attachments.json', data: '{"attachments":[]}' }], says: `${S}layers.attachments.count 4294967296 is not ${U32}`,
  },
  { name: 'a partition\'s from not a date', how: 'snapshot', set: [['layers.memory.partitions[0].from', 'yesterday']], says: `${S}layers.memory.partitions[0].from "yesterday" is not a date YYYY-MM-DD` },
  { name: 'a partition\'s to not a date', how: 'snapshot', set: [['layers.memory.partitions[0].to', '2026-13-01']], says: `${S}layers.memory.partitions[0].to "2026-13-01" is not a date YYYY-MM-DD` },
  { name: 'raw_sources a string', how: 'snapshot', set: [['raw_sources', 'openclaw']], says: `${S}raw_sources "openclaw" is not an array` },
  { name: 'raw_sources null', how: 'snapshot', set: [['raw_sources', null]], says: `${S}raw_sources null is not an array` },
  { name: 'checksum a number', how: 'snapshot', set: [['checksum', 5]], says: `${S}checksum 5 is not a string` },
  { name: 'created_at missing', how: 'delta', set: [['created_at', undefined]], says: `${D}created_at is missing` },
  { name: 'alf_version null', how: 'delta', set: [['alf_version', null]], says: `${D}alf_version null is not a string` },
  { name: 'agent.source_runtime a number', how: 'delta', set: [['agent.source_runtime', 1]], says: `${D}agent.source_runtime 1 is not a string` },
  { name: 'sync.new_sequence missing', how: 'delta', set: [['sync.new_sequence', undefined]], says: `${D}sync.new_sequence is missing` },
  { name: 'sync.new_sequence a string', how: 'delta', set: [['sync.new_sequence', '0']], says: `${D}sync.new_sequence "0" is not ${U64}` },
  { name: 'sync.base_timestamp not a time', how: 'delta', set: [['sync.base_timestamp', 'yesterday']], says: `${D}sync.base_timestamp "yesterday" is not an RFC 3339 time` },
  { name: 'changes missing', how: 'delta', set: [['changes', undefined]], says: `${D}changes is missing` },
  { name: 'changes.memory.record_count a string', how: 'delta', set: [['changes.memory.record_count', '1']], says: `${D}changes.memory.record_count "1" is not ${U64}` },
  { name: 'changes.principals.changed_ids holding a number', how: 'delta', set: [['changes.principals', { changed_ids: [5] }]], says: `${D}changes.principals.changed_ids[0] 5 is not a UUID` },
  { name: 'changes.raw.deleted null', how: 'delta', set: [['changes.raw', { deleted: null }]], says: `${D}changes.raw.deleted null is not an array` },
  {
    name: 'changes.memory.file naming another file', how: 'delta', set: [['changes.memory.file', 'memory/other.jsonl']],
    files: (line) => [{ name: 'memory/other.jsonl', data: `${line}\n` }],
    says: `${D}changes.memory.file "memory/other.jsonl" is not "memory/delta.jsonl", the only path a delta's memory changes are read from (CONTRACT §3.2)`,
  },
  {
    name: 'changes.memory.file naming a raw file', how: 'delta', set: [['changes.memory.file', 'raw/openclaw/notes.jsonl']],
    files: (line) => [{ name: 'raw/openclaw/notes.jsonl', data: `${line}\n` }], says: `${D}changes.memory.file "raw/openclaw/notes.jsonl" is not "memory/delta.jsonl"`,
  },
];

/** A value nested `levels` deep (objects), deeper than ingest keeps (MAX_JSON_DEPTH, 64). */
const nested = (levels: number): unknown => Array.from({ length: levels }).reduce<unknown>((inner) => ({ a: inner }), 1);

/**
 * A delta's manifest stored as `manifest.json` (CONTRACT §3.2's fallback): each refusal about the
 * manifest names `manifest.json`, the member the archive holds — a refusal naming
 * `delta-manifest.json` would send its reader looking for a file that is not there. Beside each,
 * the same delta with its usual `delta-manifest.json`, named so.
 */
export const REFUSED_FALLBACK_MANIFESTS: ManifestFieldCase[] = ([
  { name: 'sync.new_sequence a string', set: [['sync.new_sequence', '0']], says: ': sync.new_sequence "0" is not a whole number 0 or more' },
  { name: 'created_at missing', set: [['created_at', undefined]], says: ': created_at is missing' },
  {
    name: 'changes.memory.file naming another file', set: [['changes.memory.file', 'memory/other.jsonl']],
    files: (line) => [{ name: 'memory/other.jsonl', data: `${line}\n` }], says: ': changes.memory.file "memory/other.jsonl" is not "memory/delta.jsonl"',
  },
  { name: 'principals listed, no principals.json', set: [['changes.principals', { file: 'principals.json' }]], says: ': changes.principals.file "principals.json" is listed but not in the archive' },
  { name: 'an unknown key nested 70 deep', set: [['extra', nested(70)]], says: ' is JSON nested deeper than 64 levels' },
  {
    name: 'sync.base_sequence twice', set: [], edit: (j) => j.replace(/"base_sequence":(\d+)/, '"base_sequence":$1,"base_sequence":$1'),
    says: ': key "base_sequence" in sync appears twice',
  },
] satisfies Omit<ManifestFieldCase, 'how'>[]).flatMap((c) => (['manifest.json', 'delta-manifest.json'] as const).map((file): ManifestFieldCase => ({
  ...c, how: 'delta', name: `${c.name}, the manifest stored as ${file}`, says: `${file}${c.says}`, manifestAs: file === 'manifest.json' ? file : undefined,
})));

export const TAKEN_MANIFEST_FIELDS: ManifestFieldCase[] = [
  {
    name: 'every layer entry null (not listed), runtime_hints and sync null', how: 'snapshot',
    set: [['layers.identity', null], ['layers.principals', null], ['layers.credentials', null], ['layers.attachments', null], ['runtime_hints', null], ['sync', null]],
  },
  { name: 'layers.memory null beside a listed partition file', how: 'snapshot', set: [['layers.memory', null]] },
  {
    name: 'every known field given, of its type, and unknown keys', how: 'snapshot',
    set: [
      ['agent.source_runtime_version', '1.1.0'], ['agent.extra', { any: [1] }],
      ['runtime_hints', { primary_model: 'anthropic/claude', last_model: 'anthropic/claude', provider: 'anthropic', context_window: 200000, notes: null }],
      ['layers.memory.has_embeddings', false], ['layers.memory.has_raw_source', true], ['layers.memory.partitions[0].to', null],
      ['layers.memory.partitions[0].extra', 'x'], ['raw_sources', ['openclaw']], ['checksum', 'sha256:ab'], ['extra', null],
    ],
  },
  {
    name: 'null changes, timestamps, changed ids and unknown keys', how: 'delta',
    set: [
      ['changes.identity', null], ['changes.credentials', null], ['changes.raw', null], ['changes.principals', { changed_ids: [] }],
      ['sync.base_timestamp', BASE_TIME], ['sync.new_timestamp', TIME], ['agent.source_runtime', undefined], ['extra', { any: 1 }],
    ],
  },
  { name: 'changes.memory null, memory/delta.jsonl read', how: 'delta', set: [['changes.memory', null]] },
  {
    name: 'null in each Option field (read as absent; the schema says a string, a boolean …)', how: 'snapshot',
    set: [
      ['agent.source_runtime_version', null], ['layers.memory.has_embeddings', null], ['layers.memory.has_raw_source', null], ['checksum', null],
      ['sync', { last_sequence: 0, last_sync_at: null }], ['runtime_hints', { primary_model: 'm', last_model: 'm', provider: null, context_window: null }],
    ],
  },
  {
    name: 'null in each Option field', how: 'delta',
    set: [['agent.source_runtime', null], ['sync.base_timestamp', null], ['sync.new_timestamp', null], ['changes.memory.record_count', null], ['changes.identity', { new_version: null }]],
  },
  { name: 'changes.memory without file', how: 'delta', set: [['changes.memory', { record_count: 1 }]] },
];

const lineOf = (how: 'delta' | 'snapshot', rec: Rec): string => JSON.stringify(how === 'delta' ? { operation: 'create', ...rec } : rec);

const filesOf = (c: ManifestFieldCase, line: string, agent: string): ArchiveFile[] => c.files?.(line, agent) ?? [];

/** The bytes of case `c`'s delta on `baseSequence` holding `line`, its manifest stored where `c.manifestAs` says. */
async function deltaBytes(uploader: HostileUploader, c: ManifestFieldCase, line: string, baseSequence: number): Promise<Uint8Array> {
  const bytes = uploader.deltaOfLines([line], baseSequence, rewrite(c), filesOf(c, line, uploader.agent));
  if (c.manifestAs === undefined) return bytes;
  const { files } = await readZip(bytes, resolveLimits());
  return craftZip([...files].map(([name, data]) => ({ name: name === 'delta-manifest.json' ? c.manifestAs! : name, data })));
}

/** POSTs case `c`'s delta holding `line` on the agent's latest sequence (`claimed`: the base_sequence the request says, else that one). */
async function uploadDelta(uploader: HostileUploader, base: string, key: string, c: ManifestFieldCase, line: string, claimed?: number): Promise<Reply> {
  const seq = await uploader.latestSequence();
  return call(`${base}/v1/agents/${uploader.agent}/deltas?base_sequence=${claimed ?? seq}`, {
    method: 'POST', key, contentType: OCTET, body: await deltaBytes(uploader, c, line, seq),
  });
}

/** Each case beside a good record: refused, 400 `{"error"}` alone saying `says`; taken, 201 and its agent answering. */
export function manifestFieldVerdicts(uploader: HostileUploader, base: string, key: string, cases: ManifestFieldCase[], refused: boolean): Promise<string[]> {
  return uploadVerdicts(uploader, base, key, cases, refused, (c) => {
    const line = lineOf(c.how, uploader.recordWith('tags', ['fine']));
    if (c.how === 'delta') return uploadDelta(uploader, base, key, c, line);
    return uploader.uploadLines(c.how, [line], rewrite(c), filesOf(c, line, uploader.agent));
  });
}

/**
 * A delta (its manifest stored as `manifest.json`, and as `delta-manifest.json`) naming another
 * agent, and one whose `sync.base_sequence` is not the request's: 400 `agent_mismatch` /
 * `base_mismatch`, each saying first the file its manifest was read from (`manifest.json` is a part of
 * `delta-manifest.json`: the message must start with it). What went otherwise, one line each.
 */
export async function fallbackMismatchVerdicts(uploader: HostileUploader, base: string, key: string): Promise<string[]> {
  const wrong: string[] = [];
  for (const file of ['manifest.json', 'delta-manifest.json'] as const) {
    const manifestAs = file === 'manifest.json' ? file : undefined;
    const other = '0190a000-0000-7000-8000-00000000abcd';
    const cases: [ManifestFieldCase, number | undefined, string][] = [
      [{ name: 'another agent', how: 'delta', set: [['agent.id', other]], manifestAs }, undefined, `${file} agent.id "${other}" does not match agent ${uploader.agent}`],
      [{ name: 'another base', how: 'delta', set: [], manifestAs }, 99, `${file} sync.base_sequence`],
    ];
    for (const [c, claimed, says] of cases) {
      const reply = await uploadDelta(uploader, base, key, c, lineOf('delta', uploader.recordWith('tags', ['fine'])), claimed);
      if (reply.status !== 400 || !String(reply.json?.error).startsWith(says)) wrong.push(`${c.name}, ${file}: ${reply.status} ${reply.text.slice(0, 300)}`);
    }
  }
  return wrong;
}

/** `lineage validate`'s verdict on each case: those it calls valid when refused, or invalid when taken. */
export async function manifestFieldValidatorDisagreements(uploader: HostileUploader, cases: ManifestFieldCase[], refused: boolean): Promise<string[]> {
  const wrong: string[] = [];
  for (const c of cases) {
    const line = lineOf(c.how, uploader.recordWith('tags', ['fine']));
    const bytes = c.how === 'delta'
      ? await deltaBytes(uploader, c, line, 1)
      : uploader.snapshotOfLines([line], rewrite(c), filesOf(c, line, uploader.agent));
    const verdict = await validateArchive(bytes);
    if (verdict.valid === refused) wrong.push(`${c.how} ${c.name}: ${JSON.stringify(verdict.errors).slice(0, 300)}`);
  }
  return wrong;
}
