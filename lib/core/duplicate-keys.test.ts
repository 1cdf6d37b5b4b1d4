import { describe, expect, it } from 'vitest';
import { prng } from './prng';
import {
  DELTA_LINE_LEVEL, DELTA_MANIFEST_LEVEL, duplicatedKeyIn, duplicatedKnownKey, LAYER_LEVELS, MANIFEST_LEVEL, mayDuplicateKey, RECORD_LEVEL,
  type DuplicateKey, type KeyLevel,
} from './duplicate-keys';

/**
 * A JSON value that keeps every key of an object as written, duplicates and all: what a reader
 * that does not fold equal keys sees. Parsed by a recursive-descent parser written here for the
 * test, independent of the scan under test.
 */
type Tree = null | boolean | number | string | Tree[] | { entries: [string, Tree][] };

function parseTree(text: string): Tree {
  let i = 0;
  const ws = () => {
    while (i < text.length && ' \t\n\r'.includes(text[i]!)) i++;
  };
  const value = (): Tree => {
    ws();
    const c = text[i];
    if (c === '{') {
      i++;
      const entries: [string, Tree][] = [];
      ws();
      if (text[i] === '}') {
        i++;
        return { entries };
      }
      for (;;) {
        ws();
        const key = string();
        ws();
        if (text[i++] !== ':') throw new Error(`: expected at ${i}`);
        entries.push([key, value()]);
        ws();
        const next = text[i++];
        if (next === '}') return { entries };
        if (next !== ',') throw new Error(`, expected at ${i}`);
      }
    }
    if (c === '[') {
      i++;
      const items: Tree[] = [];
      ws();
      if (text[i] === ']') {
        i++;
        return items;
      }
      for (;;) {
        items.push(value());
        ws();
        const next = text[i++];
        if (next === ']') return items;
        if (next !== ',') throw new Error(`, expected at ${i}`);
      }
    }
    if (c === '"') return string();
    const m = /^(true|false|null|-?\d+(\.\d+)?([eE][+-]?\d+)?)/.exec(text.slice(i));
    if (!m) throw new Error(`value expected at ${i}`);
    i += m[0].length;
    return m[0] === 'null' ? null : m[0] === 'true' ? true : m[0] === 'false' ? false : Number(m[0]);
  };
  const string = (): string => {
    if (text[i] !== '"') throw new Error(`string expected at ${i}`);
    let out = '';
    for (i++; text[i] !== '"'; i++) {
      if (text[i] !== '\\') {
        out += text[i];
        continue;
      }
      const e = text[++i]!;
      if (e === 'u') {
        out += String.fromCharCode(parseInt(text.slice(i + 1, i + 5), 16));
        i += 4;
      } else out += ({ n: '\n', t: '\t', r: '\r', b: '\b', f: '\f' } as Record<string, string>)[e] ?? e;
    }
    i++;
    return out;
  };
  const tree = value();
  ws();
  if (i !== text.length) throw new Error('trailing text');
  return tree;
}

/** The reference answer: the first known key given twice in one typed object, in document order. */
function referenceDuplicate(tree: Tree, at: KeyLevel | null, path: string): DuplicateKey | null {
  if (tree === null || typeof tree !== 'object') return null;
  if (Array.isArray(tree)) {
    for (let i = 0; i < tree.length; i++) {
      const found = referenceDuplicate(tree[i]!, at, `${path}[${i}]`);
      if (found) return found;
    }
    return null;
  }
  const seen = new Set<string>();
  for (const [key, value] of tree.entries) {
    const known = at !== null && at.keys.has(key);
    if (known && seen.has(key)) return { key, at: path };
    if (known) seen.add(key);
    const childPath = path === '' ? key : `${path}.${key}`;
    if (!known) {
      const found = referenceDuplicate(value, null, childPath);
      if (found) return found;
      continue;
    }
    const object = at.objects?.[key];
    const items = at.items?.[key];
    let found: DuplicateKey | null;
    if (object !== undefined && value !== null && typeof value === 'object' && !Array.isArray(value)) found = referenceDuplicate(value, object, childPath);
    else if (items !== undefined && Array.isArray(value)) found = referenceDuplicate(value, items, childPath);
    else found = referenceDuplicate(value, null, childPath);
    if (found) return found;
  }
  return null;
}

const ROOTS = [RECORD_LEVEL, DELTA_LINE_LEVEL, MANIFEST_LEVEL, DELTA_MANIFEST_LEVEL, ...Object.values(LAYER_LEVELS)];
const KNOWN_NAMES = [...new Set(ROOTS.flatMap(function names(l: KeyLevel): string[] {
  return [...l.keys, ...Object.values(l.objects ?? {}).flatMap(names), ...Object.values(l.items ?? {}).flatMap(names)];
}))];

/**
 * Random JSON text, written by hand so that keys may repeat: keys drawn mostly from the known
 * names (so typed levels nest and collide), written plain or with `\u` escapes (any letter, or all),
 * and a few others (one ending in a backslash, one starting with a colon);
 * string values that hold keys' quoted names; whitespace between tokens.
 */
function randomJson(random: () => number, level: KeyLevel | null, depth: number): string {
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
  const space = () => (random() < 0.1 ? pick([' ', '\n', '\t ', '  ']) : '');
  const spell = (name: string): string => {
    const r = random();
    if (r < 0.8) return JSON.stringify(name);
    if (r < 0.9) return `"${[...name].map((ch) => `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}`).join('')}"`;
    const at = Math.floor(random() * name.length);
    const plain = (part: string) => JSON.stringify(part).slice(1, -1);
    return `"${plain(name.slice(0, at))}\\u${name.charCodeAt(at).toString(16).padStart(4, '0').toUpperCase()}${plain(name.slice(at + 1))}"`;
  };
  const scalar = (): string => pick([
    () => '1', () => '-2.5e3', () => 'true', () => 'null', () => JSON.stringify(pick(KNOWN_NAMES)), () => `"\\"${pick(KNOWN_NAMES)}\\":\\"x\\""`,
    () => `"a\\\\"`, () => `"{\\"id\\":1,\\"id\\":2}"`, () => JSON.stringify(`say "${pick(KNOWN_NAMES)}"`), () => '"\\u00e9t\\u00e9 \\ud83d\\ude00"',
  ])();
  /** A value of a key whose struct (or array of structs) is `object` (`items`), null for none. */
  const value = (object: KeyLevel | null, items: KeyLevel | null): string => {
    const r = random();
    if (depth <= 0 || r < 0.3) return scalar();
    if (object !== null || r < 0.6) return randomJson(random, object, depth - 1);
    const n = Math.floor(random() * 4);
    return `[${Array.from({ length: n }, () => `${space()}${random() < 0.8 ? randomJson(random, items, depth - 1) : scalar()}`).join(',')}]`;
  };
  const n = Math.floor(random() * 7);
  const names = level === null ? KNOWN_NAMES : [...level.keys];
  const entries: string[] = [];
  for (let k = 0; k < n; k++) {
    const name = random() < 0.8 ? pick(names) : pick([...KNOWN_NAMES, 'x_extra', 'é', 'x\\', ':k']);
    const object = level?.keys.has(name) ? level.objects?.[name] ?? null : null;
    const items = level?.keys.has(name) ? level.items?.[name] ?? null : null;
    entries.push(`${space()}${spell(name)}${space()}:${space()}${value(object, items)}`);
  }
  return `{${entries.join(',')}${space()}}`;
}

/**
 * The key sets as they were written by hand before they were derived from lib/core/reader-structs.ts
 * (commit 9408904), kept as a pin: a field dropped from or added to the table changes them. One
 * difference, on purpose: `changes.raw` ({changed, deleted}) of the delta manifest, which the type
 * checks read as a struct but the hand-written level left out (its keys were taken twice).
 */
function handWrittenLevels() {
  const level = (keys: string[], objects?: Record<string, KeyLevel>, items?: Record<string, KeyLevel>): KeyLevel =>
    ({ keys: new Set(keys), ...(objects ? { objects } : {}), ...(items ? { items } : {}) });

  /** `MemoryRecord` and its structs (alf-core memory.rs; CONTRACT §4.1, memory-record.schema.json). */
  const SOURCE = level(['runtime', 'runtime_version', 'origin', 'origin_file', 'extraction_method', 'session_id', 'interaction_id', 'identity_version']);
  const TEMPORAL = level(['created_at', 'updated_at', 'observed_at', 'valid_from', 'valid_until', 'last_accessed_at', 'access_count']);
  const RECORD_KEYS = ['id', 'agent_id', 'content', 'memory_type', 'source', 'temporal', 'status', 'namespace', 'category', 'supersedes',
    'confidence', 'entities', 'tags', 'embeddings', 'related_records', 'raw_source_format'];
  const RECORD_OBJECTS = { source: SOURCE, temporal: TEMPORAL };
  const RECORD_ITEMS = {
    entities: level(['name', 'type', 'role']),
    embeddings: level(['model', 'dimensions', 'vector', 'computed_at', 'source']),
    related_records: level(['id', 'relation']),
  };
  /** A partition line: one `MemoryRecord`. */
  const RECORD_LEVEL: KeyLevel = level(RECORD_KEYS, RECORD_OBJECTS, RECORD_ITEMS);
  /** A `memory/delta.jsonl` line: `DeltaMemoryEntry`, `operation` and the record flattened into it. */
  const DELTA_LINE_LEVEL: KeyLevel = level(['operation', ...RECORD_KEYS], RECORD_OBJECTS, RECORD_ITEMS);

  /** `manifest.json`: `Manifest` and its structs (alf-core manifest.rs; manifest.schema.json). */
  const MANIFEST_LEVEL: KeyLevel = level(
    ['alf_version', 'created_at', 'agent', 'layers', 'runtime_hints', 'sync', 'raw_sources', 'checksum'],
    {
      agent: level(['id', 'name', 'source_runtime', 'source_runtime_version']),
      layers: level(['identity', 'principals', 'credentials', 'memory', 'attachments'], {
        identity: level(['version', 'file']),
        principals: level(['count', 'file']),
        credentials: level(['count', 'file']),
        memory: level(['record_count', 'index_file', 'partitions', 'has_embeddings', 'has_raw_source'], undefined, {
          partitions: level(['file', 'from', 'to', 'record_count', 'sealed']),
        }),
        attachments: level(['count', 'file', 'included_count', 'included_size_bytes', 'referenced_count', 'referenced_size_bytes']),
      }),
      runtime_hints: level(['primary_model', 'last_model', 'provider', 'context_window', 'notes']),
      sync: level(['last_sequence', 'last_sync_at']),
    },
  );

  /** `delta-manifest.json`: `DeltaManifest` and its structs (alf-core manifest.rs; delta-manifest.schema.json). */
  const DELTA_MANIFEST_LEVEL: KeyLevel = level(['alf_version', 'created_at', 'agent', 'sync', 'changes'], {
    agent: level(['id', 'source_runtime']),
    sync: level(['base_sequence', 'new_sequence', 'base_timestamp', 'new_timestamp']),
    // 'raw' and its level: added (the one difference, see above).
    changes: level(['identity', 'principals', 'credentials', 'memory', 'raw'], {
      identity: level(['file', 'new_version']),
      principals: level(['file', 'changed_ids']),
      credentials: level(['file']),
      memory: level(['file', 'record_count']),
      raw: level(['changed', 'deleted']),
    }),
  });

  /**
   * The layer documents: `Identity`, `PrincipalsDocument`, `CredentialsDocument` (alf-core identity.rs,
   * principals.rs, credentials.rs) and `AttachmentsIndex` (manifest.rs) with their structs. Maps
   * (`neural_matrix`, `scores`, `custom_blocks`) and Values (`raw_source`, `aieos_extensions`,
   * `relationships`' items, `custom_fields`) take the last of two equal keys: no level.
   */
  const CAPABILITY = level(['name', 'description', 'priority', 'portability', 'host_requirements', 'credential_ids']);
  const IDENTITY_LEVEL: KeyLevel = level(['id', 'agent_id', 'version', 'updated_at', 'structured', 'prose', 'source_format', 'raw_source'], {
    structured: level(['names', 'role', 'goals', 'psychology', 'linguistics', 'capabilities', 'sub_agents', 'aieos_extensions'], {
      names: level(['primary', 'nickname', 'full']),
      psychology: level(['neural_matrix', 'personality_traits', 'moral_alignment', 'mbti'], { personality_traits: level(['framework', 'scores']) }),
      linguistics: level(['formality_level', 'verbosity', 'humor_level', 'slang_usage', 'preferred_language', 'idiolect'], {
        idiolect: level(['catchphrases', 'verbal_tics', 'avoided_words']),
      }),
    }, {
      capabilities: CAPABILITY,
      sub_agents: level(['agent_id', 'name', 'capabilities', 'status', 'description', 'model_hints', 'routing_hints', 'last_invoked_at', 'performance_notes'],
        { model_hints: level(['primary_model', 'last_model']) }, { capabilities: CAPABILITY }),
    }),
    prose: level(['soul', 'operating_instructions', 'identity_profile', 'custom_blocks']),
  });
  const PRINCIPALS_LEVEL: KeyLevel = level(['principals'], undefined, {
    principals: level(['id', 'principal_type', 'agent_id', 'profile'], {
      profile: level(['id', 'agent_id', 'principal_id', 'version', 'updated_at', 'structured', 'prose', 'source_format', 'raw_source'], {
        structured: level(['name', 'principal_type', 'timezone', 'locale', 'communication_preferences', 'work_context', 'relationships', 'custom_fields'], {
          communication_preferences: level(['tone', 'response_length', 'formatting']),
          work_context: level(['role', 'company', 'projects']),
        }),
        prose: level(['user_profile']),
      }),
    }),
  });
  const CREDENTIALS_LEVEL: KeyLevel = level(['credentials'], undefined, {
    credentials: level(['id', 'agent_id', 'service', 'credential_type', 'encrypted_payload', 'encryption', 'created_at', 'label', 'capabilities_granted',
      'updated_at', 'last_rotated_at', 'expires_at', 'tags'], {
      encryption: level(['algorithm', 'nonce', 'kdf', 'kdf_params'], { kdf_params: level(['memory_cost', 'time_cost', 'parallelism']) }),
    }),
  });
  const ATTACHMENTS_LEVEL: KeyLevel = level(['artifact_size_threshold', 'attachments'], undefined, {
    attachments: level(['id', 'filename', 'media_type', 'size_bytes', 'hash', 'source_path', 'archive_path', 'remote_ref', 'referenced_by'], {
      hash: level(['algorithm', 'value']),
    }),
  });
  /** Each layer document's level, by layer (`identity.json` … `attachments.json`). */
  const LAYER_LEVELS: Readonly<Record<'identity' | 'principals' | 'credentials' | 'attachments', KeyLevel>> = {
    identity: IDENTITY_LEVEL, principals: PRINCIPALS_LEVEL, credentials: CREDENTIALS_LEVEL, attachments: ATTACHMENTS_LEVEL,
  };
  return { RECORD_LEVEL, DELTA_LINE_LEVEL, MANIFEST_LEVEL, DELTA_MANIFEST_LEVEL, LAYER_LEVELS };
}

describe('duplicate keys', () => {
  it('derives from the reader\'s structs the key sets written by hand before, and `changes.raw` of the delta manifest', () => {
    const derived = { RECORD_LEVEL, DELTA_LINE_LEVEL, MANIFEST_LEVEL, DELTA_MANIFEST_LEVEL, LAYER_LEVELS };
    expect(derived).toEqual(handWrittenLevels());
    const find = (text: string) => duplicatedKnownKey(text, JSON.parse(text), DELTA_MANIFEST_LEVEL);
    expect(find('{"changes":{"raw":{"deleted":["raw/a"]},"raw":{"deleted":[]}}}')).toEqual({ key: 'raw', at: 'changes' });
    expect(find('{"changes":{"raw":{"changed":["raw/a"],"changed":[]}}}')).toEqual({ key: 'changed', at: 'changes.raw' });
  });

  it('the scan and the pre-filter agree with a reference parser that keeps every key, on random JSON at each level', () => {
    const random = prng(20261207);
    let duplicates = 0;
    let suspected = 0;
    for (let n = 0; n < 2000; n++) {
      const root = ROOTS[n % ROOTS.length]!;
      // Some texts with no escape at all, so the pre-filter's counting decides.
      const text = randomJson(random, root, 4);
      const plain = n % 2 === 0 ? text.replace(/\\u([0-9a-fA-F]{4})/g, (_, hex: string) => {
        const ch = String.fromCharCode(parseInt(hex, 16));
        return /[a-z_é]/.test(ch) ? ch : 'x';
      }) : text;
      const value = JSON.parse(plain) as unknown;
      const expected = referenceDuplicate(parseTree(plain), root, '');
      expect(duplicatedKeyIn(plain, root), plain).toEqual(expected);
      const may = mayDuplicateKey(plain, value);
      if (expected !== null) expect(may, plain).toBe(true);
      expect(duplicatedKnownKey(plain, value, root), plain).toEqual(expected);
      if (expected !== null) duplicates++;
      if (may) suspected++;
    }
    // The cases hold both answers, and the pre-filter lets some through unscanned.
    expect(duplicates).toBeGreaterThan(200);
    expect(duplicates).toBeLessThan(1800);
    expect(suspected).toBeLessThan(2000);
  });

  it('names the key and where: plain, escaped, nested; unknown keys and Values take the last', () => {
    const find = (text: string, root = RECORD_LEVEL) => duplicatedKnownKey(text, JSON.parse(text), root);
    expect(find('{"id":"a","content":"a","content":"b"}')).toEqual({ key: 'content', at: '' });
    expect(find('{"id":"a","content":"a","\\u0063ontent":"b"}')).toEqual({ key: 'content', at: '' });
    expect(find('{"source":{"origin":1,"\\u006F\\u0072igin":2}}')).toEqual({ key: 'origin', at: 'source' });
    expect(find('{"entities":[{"name":1},{"name":2,"type":1,"name":3}]}')).toEqual({ key: 'name', at: 'entities[1]' });
    // A key ending in an escaped backslash, or spaced from its colon, hides from the token count: scanned.
    expect(find('{"content":"a","content":"b","x\\\\":1}')).toEqual({ key: 'content', at: '' });
    expect(find('{"content":"a","content" :"b"}')).toEqual({ key: 'content', at: '' });
    expect(find('{"operation":"create","operation":"delete"}', DELTA_LINE_LEVEL)).toEqual({ key: 'operation', at: '' });
    expect(find('{"layers":{"memory":{"partitions":[{"file":"a"},{"file":"b","file":"c"}]}}}', MANIFEST_LEVEL)).toEqual({ key: 'file', at: 'layers.memory.partitions[1]' });
    // The layer documents' structs; their maps (`scores`, `custom_blocks`) and Values (`raw_source`) take the last.
    expect(find('{"principals":[{"profile":{"version":1,"v\\u0065rsion":2}}]}', LAYER_LEVELS.principals)).toEqual({ key: 'version', at: 'principals[0].profile' });
    expect(find('{"structured":{"sub_agents":[{"capabilities":[{"name":"a","name":"b"}]}]}}', LAYER_LEVELS.identity)).toEqual({ key: 'name', at: 'structured.sub_agents[0].capabilities[0]' });
    expect(find('{"credentials":[{"encryption":{"kdf_params":{"time_cost":1,"time_cost":2}}}]}', LAYER_LEVELS.credentials)).toEqual({ key: 'time_cost', at: 'credentials[0].encryption.kdf_params' });
    for (const text of ['{"structured":{"psychology":{"personality_traits":{"scores":{"a":1,"a":2}}}},"prose":{"custom_blocks":{"x":"1","x":"2"}},"raw_source":{"id":1,"id":2}}']) {
      expect(find(text, LAYER_LEVELS.identity), text).toBeNull();
    }
    // Taken: an unknown key twice, a Value's key twice, a key's name in values, one key in two objects.
    for (const text of ['{"x":1,"x":2}', '{"raw_source_format":{"id":1,"id":2}}', '{"operation":"a","operation":"b"}', '{"content":"\\"content\\":1","tags":["content","content"]}',
      '{"id":"a","related_records":[{"id":"b"}],"source":{"origin":"o"},"raw_source_format":{"origin":"p"}}', '{"x":[{"id":1,"id":2}],"id":3}']) {
      expect(find(text), text).toBeNull();
    }
  });
});
