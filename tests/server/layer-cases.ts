/**
 * Layer documents and skipped delta lines, for tests/server/hostile-fields.test.ts (SQLite) and
 * scale-out-hostile-fields.test.ts (PostgreSQL + radosgw). The reference reader reads
 * `identity.json`, `principals.json`, `credentials.json` and `attachments.json` into typed structs
 * (alf-core identity.rs, principals.rs, credentials.rs, manifest.rs), and every `memory/delta.jsonl`
 * line into a `DeltaMemoryEntry` — `operation` any string, the record flattened in — before it
 * ignores an unknown operation: it refuses a known field given twice or of the wrong JSON type in
 * them, a required one missing, a line whose `operation` is missing or not a string. Ingest must
 * refuse each (400 naming the file, the line and the key; nothing stored) and take what it reads:
 * unknown keys (twice too), a key twice in a map or a Value, unknown enum strings, null in an
 * optional field, markup in every string — shown safely on every route of the agent.
 */
import { randomUUID } from 'node:crypto';
import { validateArchive } from '@/lib/core/validate';
import { MARKUP, uploadVerdicts, type HostileUploader, type Rec } from './hostile-fields-cases';

const TIME = '2026-01-15T10:00:00Z';
const OTHER = '0190a000-0000-7000-8000-00000000ffff';
type LayerFile = 'identity.json' | 'principals.json' | 'credentials.json' | 'attachments.json';

/** Layer documents the reference reader reads, each field of its structs given. */
function goodDoc(file: LayerFile, agent: string): Rec {
  const principal = randomUUID();
  const capability = { name: 'web_search', description: 'd', priority: 1, portability: 'intrinsic', host_requirements: 'h', credential_ids: [OTHER] };
  switch (file) {
    case 'identity.json':
      return {
        id: randomUUID(), agent_id: agent, version: 2, updated_at: TIME, source_format: 'openclaw', raw_source: { any: [1] },
        structured: {
          names: { primary: 'Atlas', nickname: 'At', full: 'Atlas Full' }, role: 'helper', goals: ['help'],
          psychology: { neural_matrix: { curiosity: 0.9 }, personality_traits: { framework: 'OCEAN', scores: { openness: 0.8 } }, moral_alignment: 'NG', mbti: 'INTJ' },
          linguistics: { formality_level: 0.5, verbosity: 0.4, humor_level: 0.1, slang_usage: false, preferred_language: 'en', idiolect: { catchphrases: ['hm'], verbal_tics: [], avoided_words: ['very'] } },
          capabilities: [capability],
          sub_agents: [{ agent_id: OTHER, name: 'scout', capabilities: [capability], status: 'active', description: 'd', model_hints: { primary_model: 'm', last_model: 'm' }, routing_hints: 'r', last_invoked_at: TIME, performance_notes: 'p' }],
          aieos_extensions: { bio: 'b' },
        },
        prose: { soul: 'be kind', operating_instructions: 'o', identity_profile: 'i', custom_blocks: { tools_guidance: 't' } },
      };
    case 'principals.json':
      return {
        principals: [{
          id: principal, principal_type: 'human', agent_id: null,
          profile: {
            id: randomUUID(), agent_id: agent, principal_id: principal, version: 1, updated_at: TIME, source_format: 'openclaw', raw_source: 'USER.md',
            structured: {
              name: 'Alice', principal_type: 'human', timezone: 'UTC', locale: 'en-US', communication_preferences: { tone: 'casual', response_length: 'short', formatting: 'none' },
              work_context: { role: 'eng', company: 'Acme', projects: ['alf'] }, relationships: [{ any: 'thing' }, 3], custom_fields: { x: 1 },
            },
            prose: { user_profile: 'Alice.' },
          },
        }],
      };
    case 'credentials.json':
      return {
        credentials: [{
          id: randomUUID(), agent_id: agent, service: 'openai', credential_type: 'api_key', encrypted_payload: 'eA==', created_at: TIME,
          encryption: { algorithm: 'xchacha20-poly1305', nonce: 'BwcHBwcHBwcHBwcHBwcHBwcHBwcHBwcH', kdf: 'argon2id', kdf_params: { memory_cost: 65536, time_cost: 3, parallelism: 4 } },
          label: 'key', capabilities_granted: ['web_search'], updated_at: TIME, last_rotated_at: TIME, expires_at: TIME, tags: ['prod'],
        }],
      };
    case 'attachments.json':
      return {
        artifact_size_threshold: 102400,
        attachments: [{
          id: randomUUID(), filename: 'notes.txt', media_type: 'text/plain', size_bytes: 5, hash: { algorithm: 'sha256', value: 'ab' },
          source_path: 'notes.txt', archive_path: 'artifacts/notes.txt', remote_ref: null, referenced_by: [OTHER],
        }],
      };
  }
}

/** `json` with `text` put right after the first `after`. */
function insert(json: string, after: string, text: string): string {
  const at = json.indexOf(after);
  if (at < 0) throw new Error(`no ${after} in ${json}`);
  return `${json.slice(0, at + after.length)}${text}${json.slice(at + after.length)}`;
}

/** Sets `path` (dotted, `[n]` for an array item) of `doc` to `value`; `undefined` deletes it. */
function set(doc: Rec, path: string, value: unknown): Rec {
  const keys = path.replace(/\[(\d+)\]/g, '.$1').split('.');
  let at = doc as Record<string, unknown>;
  for (const key of keys.slice(0, -1)) at = at[key] as Record<string, unknown>;
  if (value === undefined) delete at[keys.at(-1)!];
  else at[keys.at(-1)!] = value;
  return doc;
}

/** A layer case: the document (good, then changed by `edit` as an object, then by `text` as text), sent as a snapshot's or a delta's. */
export interface LayerCase {
  name: string;
  file: LayerFile;
  how: 'snapshot' | 'delta';
  edit?: (doc: Rec) => Rec;
  text?: (json: string) => string;
  /** Refused cases: what the refusal says, after `refused: `. */
  says?: string;
}

export const REFUSED_LAYERS: LayerCase[] = [
  { name: 'identity version twice', file: 'identity.json', how: 'snapshot', text: (j) => insert(j, '{', '"version":7,'), says: 'identity.json: key "version" appears twice' },
  { name: 'identity updated_at twice, escaped', file: 'identity.json', how: 'delta', text: (j) => insert(j, '{', `"upd\\u0061ted_at":"${TIME}",`), says: 'identity.json: key "updated_at" appears twice' },
  { name: 'a capability\'s name twice', file: 'identity.json', how: 'snapshot', text: (j) => insert(j, '"capabilities":[{', '"name":"other",'), says: 'identity.json: key "name" in structured.capabilities[0] appears twice' },
  { name: 'a principal profile\'s version twice', file: 'principals.json', how: 'snapshot', text: (j) => insert(j, '"profile":{', '"version":3,'), says: 'principals.json: key "version" in principals[0].profile appears twice' },
  { name: 'a credential\'s nonce twice', file: 'credentials.json', how: 'delta', text: (j) => insert(j, '"encryption":{', '"nonce":"x",'), says: 'credentials.json: key "nonce" in credentials[0].encryption appears twice' },
  { name: 'an attachment hash\'s value twice', file: 'attachments.json', how: 'snapshot', text: (j) => insert(j, '"hash":{', '"value":"cd",'), says: 'attachments.json: key "value" in attachments[0].hash appears twice' },
  { name: 'identity version a string', file: 'identity.json', how: 'snapshot', edit: (d) => set(d, 'version', '2'), says: 'identity.json: version "2" is not a whole number 0 to 4294967295' },
  { name: 'identity updated_at not a time', file: 'identity.json', how: 'delta', edit: (d) => set(d, 'updated_at', 'yesterday'), says: 'identity.json: updated_at "yesterday" is not an RFC 3339 time' },
  { name: 'identity id missing', file: 'identity.json', how: 'snapshot', edit: (d) => set(d, 'id', undefined), says: 'identity.json: id is missing' },
  { name: 'slang_usage a string', file: 'identity.json', how: 'snapshot', edit: (d) => set(d, 'structured.linguistics.slang_usage', 'yes'), says: 'identity.json: structured.linguistics.slang_usage "yes" is not true or false' },
  { name: 'a neural_matrix score a string', file: 'identity.json', how: 'snapshot', edit: (d) => set(d, 'structured.psychology.neural_matrix.curiosity', 'high'), says: 'identity.json: structured.psychology.neural_matrix.curiosity "high" is not a number' },
  { name: 'a capability\'s credential id not a UUID', file: 'identity.json', how: 'delta', edit: (d) => set(d, 'structured.capabilities[0].credential_ids', ['key-1']), says: 'identity.json: structured.capabilities[0].credential_ids[0] "key-1" is not a UUID' },
  { name: 'goals null', file: 'identity.json', how: 'snapshot', edit: (d) => set(d, 'structured.goals', null), says: 'identity.json: structured.goals null is not an array' },
  { name: 'principals a string', file: 'principals.json', how: 'snapshot', edit: (d) => set(d, 'principals', 'alice'), says: 'principals.json: principals "alice" is not an array' },
  { name: 'a principal without profile', file: 'principals.json', how: 'delta', edit: (d) => set(d, 'principals[0].profile', undefined), says: 'principals.json: principals[0].profile is missing' },
  { name: 'a principal_type not a string', file: 'principals.json', how: 'snapshot', edit: (d) => set(d, 'principals[0].principal_type', 1), says: 'principals.json: principals[0].principal_type 1 is not a string' },
  { name: 'work_context.projects a string', file: 'principals.json', how: 'snapshot', edit: (d) => set(d, 'principals[0].profile.structured.work_context.projects', 'alf'), says: 'principals.json: principals[0].profile.structured.work_context.projects "alf" is not an array' },
  { name: 'a credential\'s created_at a number', file: 'credentials.json', how: 'delta', edit: (d) => set(d, 'credentials[0].created_at', 5), says: 'credentials.json: credentials[0].created_at 5 is not an RFC 3339 time' },
  { name: 'a credential\'s time_cost negative', file: 'credentials.json', how: 'snapshot', edit: (d) => set(d, 'credentials[0].encryption.kdf_params.time_cost', -3), says: 'credentials.json: credentials[0].encryption.kdf_params.time_cost -3 is not a whole number 0 to 4294967295' },
  { name: 'an attachment\'s size_bytes text', file: 'attachments.json', how: 'snapshot', edit: (d) => set(d, 'attachments[0].size_bytes', '5'), says: 'attachments.json: attachments[0].size_bytes "5" is not a whole number 0 or more' },
];

export const TAKEN_LAYERS: LayerCase[] = [
  ...(['identity.json', 'principals.json', 'credentials.json', 'attachments.json'] as const).map((file): LayerCase => ({ name: `${file}, every field`, file, how: 'snapshot' })),
  ...(['identity.json', 'principals.json', 'credentials.json'] as const).map((file): LayerCase => ({ name: `${file} in a delta`, file, how: 'delta' })),
  { name: 'unknown keys twice, at each level', file: 'principals.json', how: 'snapshot', text: (j) => insert(insert(insert(j, '{', '"x":1,"x":2,'), '"profile":{', '"x_p":[],"x_p":{},'), '"principals":[{', '"x":"a","x":"b",') },
  { name: 'a key twice in a map and in Values', file: 'identity.json', how: 'delta', text: (j) => insert(insert(insert(j, '"scores":{', '"openness":0.1,'), '"custom_blocks":{', '"tools_guidance":"x",'), '"raw_source":{', '"any":2,') },
  { name: 'a key twice in a relationship (a Value)', file: 'principals.json', how: 'snapshot', text: (j) => insert(j, '"relationships":[{', '"any":"other",') },
  {
    name: 'unknown enum strings', file: 'identity.json', how: 'snapshot',
    edit: (d) => set(set(d, 'structured.sub_agents[0].status', 'sleeping'), 'structured.capabilities[0].portability', MARKUP),
  },
  { name: 'an unknown principal_type', file: 'principals.json', how: 'delta', edit: (d) => set(d, 'principals[0].principal_type', 'organization') },
  { name: 'an unknown credential_type, null optional times', file: 'credentials.json', how: 'snapshot', edit: (d) => set(set(set(d, 'credentials[0].credential_type', 'biometric_token'), 'credentials[0].expires_at', null), 'credentials[0].label', null) },
  {
    name: 'null in optional fields, absent lists', file: 'identity.json', how: 'snapshot',
    edit: (d) => set(set(set(set(set(d, 'source_format', null), 'raw_source', null), 'structured.sub_agents[0].agent_id', null), 'structured.goals', undefined), 'prose', null),
  },
  { name: 'a reference-only attachment', file: 'attachments.json', how: 'snapshot', edit: (d) => set(set(set(d, 'attachments[0].archive_path', null), 'attachments[0].referenced_by', undefined), 'artifact_size_threshold', undefined) },
  {
    name: 'markup and long text in every string', file: 'identity.json', how: 'snapshot',
    edit: (d) => set(set(set(set(d, 'prose.soul', `${MARKUP}${'x'.repeat(100_000)}`), 'structured.names.primary', MARKUP), 'source_format', MARKUP), MARKUP, { [MARKUP]: MARKUP }),
  },
  { name: 'markup in a principal', file: 'principals.json', how: 'snapshot', edit: (d) => set(set(d, 'principals[0].profile.structured.name', MARKUP), 'principals[0].profile.prose.user_profile', MARKUP) },
];

/** The text of a case's document for `agent`. */
function caseText(c: LayerCase, agent: string): string {
  const doc = c.edit ? c.edit(goodDoc(c.file, agent)) : goodDoc(c.file, agent);
  const json = JSON.stringify(doc);
  return c.text ? c.text(json) : json;
}

/** A good record line, as a delta (`operation` first) or a snapshot gives it. */
const lineOf = (how: 'delta' | 'snapshot', rec: Rec): string => JSON.stringify(how === 'delta' ? { operation: 'create', ...rec } : rec);

/**
 * Each layer case beside a good record: what did not come as expected. Refused: 400, `{"error"}`
 * alone, saying `says`. Taken: 201, and the agent's AgentInfo (its `layer_counts`, the fold of the
 * layers) answers 200.
 */
export function layerVerdicts(uploader: HostileUploader, base: string, key: string, cases: LayerCase[], refused: boolean): Promise<string[]> {
  return uploadVerdicts(uploader, base, key, cases, refused, (c) =>
    uploader.uploadLines(c.how, [lineOf(c.how, uploader.recordWith('tags', ['fine']))], undefined, [{ name: c.file, data: caseText(c, uploader.agent) }]));
}

/** A delta line case: a record (`fields` set) written with `operation` (an unknown one, or none), its text rewritten by `line`. */
export interface SkippedCase {
  name: string;
  operation?: unknown;
  fields?: Rec;
  line?: (json: string) => string;
  says?: string;
}

/** Lines ours skips that the reference reader still reads whole, and refuses. */
export const REFUSED_SKIPPED: SkippedCase[] = [
  { name: 'tags a string', operation: 'archive', fields: { tags: 'a tag' }, says: 'tags "a tag" is not an array of strings' },
  { name: 'content twice', operation: 'archive', line: (j) => insert(j, '"operation":"archive",', '"content":"first",'), says: 'key "content" appears twice' },
  { name: 'operation twice', operation: 'archive', line: (j) => insert(j, '{', '"operation":"purge",'), says: 'key "operation" appears twice' },
  { name: 'namespace missing', operation: 'archive', fields: { namespace: undefined }, says: 'record.namespace: expected a string' },
  { name: 'a time that is none', operation: 'archive', fields: { temporal: { created_at: 'yesterday' } }, says: 'temporal.created_at "yesterday" is not an RFC 3339 time' },
  { name: 'an id that is no UUID', operation: 'archive', fields: { id: 'memory-1' }, says: 'record id "memory-1" is not a UUID' },
  { name: 'an entity without type', operation: 'archive', fields: { entities: [{ name: 'Jane' }] }, says: 'entities[0].type is missing' },
  { name: 'operation a number', operation: 5, says: 'operation 5 is not a string' },
  { name: 'operation null', operation: null, says: 'operation null is not a string' },
  { name: 'operation missing', says: 'operation is missing' },
];

/** Lines with an unknown operation the reference reader reads (and ignores): taken. */
export const TAKEN_SKIPPED: SkippedCase[] = [
  { name: 'a good record', operation: 'archive' },
  { name: 'unknown values and keys, markup', operation: MARKUP, fields: { memory_type: 'dream', status: 'zombie', x_note: { a: [1] }, content: MARKUP }, line: (j) => insert(j, '{', '"x":1,"x":2,') },
  { name: 'a NUL character (ours refuses it in a record it keeps; this one it does not keep)', operation: 'archive', fields: { content: 'a\u0000b' } },
  { name: 'the id of the line before it', operation: 'archive', fields: { id: 'same-as-good' } },
];

/** The lines of a skipped case: a good `create` line, then the case's. */
function skippedLines(uploader: HostileUploader, c: SkippedCase): string[] {
  const good = uploader.recordWith('tags', ['fine']);
  const rec: Rec = { ...uploader.recordWith('tags', ['case']) };
  for (const [k, v] of Object.entries(c.fields ?? {})) {
    if (v === undefined) delete rec[k];
    else rec[k] = k === 'id' && v === 'same-as-good' ? good.id : k === 'temporal' ? { ...(rec.temporal as Rec), ...(v as Rec) } : v;
  }
  const json = JSON.stringify('operation' in c ? { operation: c.operation, ...rec } : rec);
  return [lineOf('delta', good), c.line ? c.line(json) : json];
}

/** Each skipped-line case as a delta: refused, 400 naming `memory/delta.jsonl line 2` and `says`; taken, 201. */
export async function skippedVerdicts(uploader: HostileUploader, cases: SkippedCase[], refused: boolean): Promise<string[]> {
  const wrong: string[] = [];
  for (const c of cases) {
    const reply = await uploader.uploadLines('delta', skippedLines(uploader, c));
    if (!refused) {
      if (reply.status !== 201) wrong.push(`${c.name}: ${reply.status} ${reply.text.slice(0, 300)}`);
    } else if (reply.status !== 400 || Object.keys(reply.json ?? {}).join() !== 'error' || !String(reply.json.error).startsWith('refused: memory/delta.jsonl line 2: ') || !String(reply.json.error).includes(c.says!)) {
      wrong.push(`${c.name}: ${reply.status} ${reply.text.slice(0, 300)}`);
    }
  }
  return wrong;
}

/** `lineage validate`'s verdict on each case: those it calls valid when refused, or invalid when taken. */
export async function layerValidatorDisagreements(uploader: HostileUploader, layers: LayerCase[], skipped: SkippedCase[], refused: boolean): Promise<string[]> {
  const wrong: string[] = [];
  const good = lineOf('snapshot', uploader.recordWith('tags', ['fine']));
  const archives: [string, Uint8Array][] = [
    ...layers.map((c): [string, Uint8Array] => {
      const files = [{ name: c.file, data: caseText(c, uploader.agent) }];
      return [c.name, c.how === 'delta' ? uploader.deltaOfLines([lineOf('delta', JSON.parse(good))], 1, undefined, files) : uploader.snapshotOfLines([good], undefined, files)];
    }),
    ...skipped.map((c): [string, Uint8Array] => [c.name, uploader.deltaOfLines(skippedLines(uploader, c), 1)]),
  ];
  for (const [name, bytes] of archives) {
    const verdict = await validateArchive(bytes);
    if (verdict.valid === refused) wrong.push(`${name}: ${JSON.stringify(verdict.errors).slice(0, 300)}`);
  }
  return wrong;
}

/**
 * A manifest's layer file references (lib/core/archive/layer-refs.ts): the reference reader reads
 * a listed layer from the file `layers.X.file` (a snapshot) or `changes.X.file` (a delta) names, and
 * fails when it is not there; writers name only the fixed paths, which are all ours reads. `entry`:
 * what the manifest says of `layer` (`undefined` leaves it out); `files`: the layer documents sent,
 * each a good one for its layer unless `data` is given.
 */
export interface FileRefCase {
  name: string;
  how: 'snapshot' | 'delta';
  layer: 'identity' | 'principals' | 'credentials' | 'attachments';
  entry: unknown;
  files: { name: string; of: LayerFile; data?: (json: string) => string }[];
  /** Refused cases: what the refusal says, after `refused: `. */
  says?: string;
}

const ALL_LAYERS: { name: string; of: LayerFile }[] = (['identity.json', 'principals.json', 'credentials.json', 'attachments.json'] as const).map((f) => ({ name: f, of: f }));

export const REFUSED_FILE_REFS: FileRefCase[] = [
  {
    name: 'identity named at custom.json, a bad one there', how: 'snapshot', layer: 'identity', entry: { version: 2, file: 'custom.json' },
    files: [{ name: 'identity.json', of: 'identity.json' }, { name: 'custom.json', of: 'identity.json', data: (j) => insert(j, '{', '"version":"2",') }],
    says: 'manifest.json: layers.identity.file "custom.json" is not "identity.json"',
  },
  { name: 'principals listed, no principals.json', how: 'snapshot', layer: 'principals', entry: { count: 1, file: 'principals.json' }, files: [], says: 'manifest.json: layers.principals.file "principals.json" is listed but not in the archive' },
  { name: 'credentials named outside the archive', how: 'snapshot', layer: 'credentials', entry: { count: 1, file: '../credentials.json' }, files: [{ name: 'credentials.json', of: 'credentials.json' }], says: 'manifest.json: layers.credentials.file "../credentials.json" is not "credentials.json"' },
  { name: 'attachments named at a raw file', how: 'snapshot', layer: 'attachments', entry: { count: 1, file: 'raw/openclaw/MEMORY.md' }, files: [{ name: 'attachments.json', of: 'attachments.json' }], says: 'manifest.json: layers.attachments.file "raw/openclaw/MEMORY.md" is not "attachments.json"' },
  { name: 'identity listed without file', how: 'snapshot', layer: 'identity', entry: { version: 2 }, files: [{ name: 'identity.json', of: 'identity.json' }], says: 'manifest.json: layers.identity.file is missing' },
  { name: 'identity file a number', how: 'snapshot', layer: 'identity', entry: { version: 2, file: 7 }, files: [{ name: 'identity.json', of: 'identity.json' }], says: 'manifest.json: layers.identity.file is not a string' },
  { name: 'principals listed as a string', how: 'snapshot', layer: 'principals', entry: 'principals.json', files: [{ name: 'principals.json', of: 'principals.json' }], says: 'manifest.json: layers.principals is not an object' },
  {
    name: 'identity named at custom.json', how: 'delta', layer: 'identity', entry: { file: 'custom.json', new_version: 3 },
    files: [{ name: 'identity.json', of: 'identity.json' }, { name: 'custom.json', of: 'identity.json' }],
    says: 'delta-manifest.json: changes.identity.file "custom.json" is not "identity.json"',
  },
  { name: 'principals listed, no principals.json', how: 'delta', layer: 'principals', entry: { file: 'principals.json' }, files: [], says: 'delta-manifest.json: changes.principals.file "principals.json" is listed but not in the archive' },
  { name: 'credentials named at an absolute path', how: 'delta', layer: 'credentials', entry: { file: '/credentials.json' }, files: [{ name: 'credentials.json', of: 'credentials.json' }], says: 'delta-manifest.json: changes.credentials.file "/credentials.json" is not "credentials.json"' },
];

export const TAKEN_FILE_REFS: FileRefCase[] = [
  ...(['identity', 'principals', 'credentials', 'attachments'] as const).map((layer): FileRefCase => ({
    name: `${layer} listed at its fixed path, as our writer and the reference's do`, how: 'snapshot', layer,
    entry: { ...(layer === 'identity' ? { version: 2 } : { count: 1 }), file: `${layer}.json` }, files: ALL_LAYERS,
  })),
  ...(['identity', 'principals', 'credentials'] as const).map((layer): FileRefCase => ({
    name: `${layer} listed at its fixed path`, how: 'delta', layer, entry: { file: `${layer}.json`, ...(layer === 'identity' ? { new_version: 3 } : {}) }, files: ALL_LAYERS.slice(0, 3),
  })),
  { name: 'identity listed without file (optional in a delta manifest)', how: 'delta', layer: 'identity', entry: { new_version: 3 }, files: [{ name: 'identity.json', of: 'identity.json' }] },
];

/** The manifest rewrite of a file reference case: its entry set in `layers` or `changes`. */
function fileRefManifest(c: FileRefCase): (json: string) => string {
  return (json) => {
    const doc = JSON.parse(json) as Record<string, Record<string, unknown>>;
    doc[c.how === 'snapshot' ? 'layers' : 'changes']![c.layer] = c.entry;
    return JSON.stringify(doc);
  };
}

function fileRefFiles(c: FileRefCase, agent: string): { name: string; data: string }[] {
  return c.files.map((f) => {
    const json = JSON.stringify(goodDoc(f.of, agent));
    return { name: f.name, data: f.data ? f.data(json) : json };
  });
}

/** Each file reference case beside a good record: refused, 400 `{"error"}` alone saying `says`; taken, 201 and its agent answering. */
export function fileRefVerdicts(uploader: HostileUploader, base: string, key: string, cases: FileRefCase[], refused: boolean): Promise<string[]> {
  return uploadVerdicts(uploader, base, key, cases, refused, (c) =>
    uploader.uploadLines(c.how, [lineOf(c.how, uploader.recordWith('tags', ['fine']))], fileRefManifest(c), fileRefFiles(c, uploader.agent)));
}

/** `lineage validate`'s verdict on each file reference case: those it calls valid when refused, or invalid when taken. */
export async function fileRefValidatorDisagreements(uploader: HostileUploader, cases: FileRefCase[], refused: boolean): Promise<string[]> {
  const wrong: string[] = [];
  const good = uploader.recordWith('tags', ['fine']);
  for (const c of cases) {
    const files = fileRefFiles(c, uploader.agent);
    const bytes = c.how === 'delta'
      ? uploader.deltaOfLines([lineOf('delta', good)], 1, fileRefManifest(c), files)
      : uploader.snapshotOfLines([lineOf('snapshot', good)], fileRefManifest(c), files);
    const verdict = await validateArchive(bytes);
    if (verdict.valid === refused) wrong.push(`${c.how} ${c.name}: ${JSON.stringify(verdict.errors).slice(0, 300)}`);
  }
  return wrong;
}
