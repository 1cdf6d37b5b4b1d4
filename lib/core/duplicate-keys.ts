/**
 * Duplicated keys the reference reader refuses. `JSON.parse` takes the last of two equal keys in
 * an object; the reference `alf` reader (serde derive on its structs, CONTRACT §3/§4.1) refuses a
 * struct whose known field comes twice ("duplicate field `content`"), escaped or not (`"\u0063ontent"`
 * is `content`). An unknown key it keeps in the struct's `#[serde(flatten)] extra` map, and a
 * `serde_json::Value` (`raw_source_format`, an unknown key's value) takes the last of two equal keys,
 * as `JSON.parse` does — so only a known field of a typed struct matters here.
 *
 * `duplicatedKnownKey` finds the first such key in a JSON text already parsed (`value`): a cheap
 * look first (`mayDuplicateKey`: a key given twice anywhere shows as more key tokens in the text
 * than keys in the parsed value), the exact scan (`duplicatedKeyIn`: escapes decoded, only known
 * keys of typed levels counted) only for the rare texts that look suspect. The levels are derived
 * from the structs of lib/core/reader-structs.ts (`keyLevel`), the table the type checks read too.
 */
import { DELTA_LINE, DELTA_MANIFEST, isStruct, LAYER_STRUCTS, RECORD, SNAPSHOT_MANIFEST, type Struct } from './reader-structs';

/** The fields a reader's struct knows at one level of a document, and the structs below it. */
export interface KeyLevel {
  readonly keys: ReadonlySet<string>;
  /** A known field holding a struct (an object). */
  readonly objects?: Readonly<Record<string, KeyLevel>>;
  /** A known field holding an array of structs. */
  readonly items?: Readonly<Record<string, KeyLevel>>;
}

/**
 * The level of `struct` (lib/core/reader-structs.ts): every known field's name; a field holding a
 * struct, or a list of structs, has its own level. Maps and `serde_json::Value`s (`neural_matrix`,
 * `scores`, `custom_blocks`, `raw_source`, `raw_source_format`, `relationships`' items) take the
 * last of two equal keys: no level.
 */
export function keyLevel(struct: Struct): KeyLevel {
  const objects: Record<string, KeyLevel> = {};
  const items: Record<string, KeyLevel> = {};
  for (const [name, shape] of struct.fields) {
    if (isStruct(shape)) objects[name] = keyLevel(shape);
    else if (typeof shape === 'object' && 'list' in shape && typeof shape.list === 'object') items[name] = keyLevel(shape.list);
  }
  return {
    keys: new Set(struct.fields.map(([name]) => name)),
    ...(Object.keys(objects).length > 0 ? { objects } : {}),
    ...(Object.keys(items).length > 0 ? { items } : {}),
  };
}

/** A partition line: one `MemoryRecord`. */
export const RECORD_LEVEL: KeyLevel = keyLevel(RECORD);
/** A `memory/delta.jsonl` line: `DeltaMemoryEntry`, `operation` and the record flattened into it. */
export const DELTA_LINE_LEVEL: KeyLevel = keyLevel(DELTA_LINE);
/** `manifest.json`: `Manifest` and its structs. */
export const MANIFEST_LEVEL: KeyLevel = keyLevel(SNAPSHOT_MANIFEST);
/** `delta-manifest.json`: `DeltaManifest` and its structs. */
export const DELTA_MANIFEST_LEVEL: KeyLevel = keyLevel(DELTA_MANIFEST);
/** Each layer document's level, by layer (`identity.json` … `attachments.json`). */
export const LAYER_LEVELS: Readonly<Record<'identity' | 'principals' | 'credentials' | 'attachments', KeyLevel>> = {
  identity: keyLevel(LAYER_STRUCTS.identity), principals: keyLevel(LAYER_STRUCTS.principals),
  credentials: keyLevel(LAYER_STRUCTS.credentials), attachments: keyLevel(LAYER_STRUCTS.attachments),
};

/** A known key that comes twice in one object: the key (unescaped) and where (`source`, `entities[1]`; '' at the top). */
export interface DuplicateKey {
  key: string;
  at: string;
}

/** How a duplicate reads in an error message: `key "content"` or `key "origin" in source`. */
export function describeDuplicate(duplicate: DuplicateKey): string {
  return `key ${JSON.stringify(duplicate.key)}${duplicate.at === '' ? '' : ` in ${duplicate.at}`} appears twice`;
}

interface Frame {
  /** Null: an object or array no struct reads (a `Value`, an unknown key's): its keys are not looked at. */
  readonly level: KeyLevel | null;
  readonly array: boolean;
  /** The keys met so far (objects at a known level only). */
  readonly seen: Set<string> | null;
  readonly path: string;
  /** Arrays: the index of the item being read. */
  index: number;
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/**
 * The first known key of `root`'s structs that comes twice in one object of `text`, in text order;
 * null when none does. `text` is JSON that `JSON.parse` accepted (on other text the answer means
 * nothing, but the scan ends). Iterative: any depth.
 */
export function duplicatedKeyIn(text: string, root: KeyLevel): DuplicateKey | null {
  const stack: Frame[] = [];
  let top: Frame | null = null;
  /** In an object: whether the next string is a key. */
  let expectKey = false;
  /** In an object: the last key read, whose value comes next. */
  let key: string | null = null;
  const childLevel = (kind: 'objects' | 'items'): KeyLevel | null => {
    if (top === null) return kind === 'objects' ? root : null;
    if (top.array) return kind === 'objects' ? top.level : null;
    if (top.level === null || key === null || !top.level.keys.has(key)) return null;
    return top.level[kind]?.[key] ?? null;
  };
  const childPath = (): string => {
    if (top === null) return '';
    if (top.array) return `${top.path}[${top.index}]`;
    return top.path === '' ? key! : `${top.path}.${key!}`;
  };
  const push = (frame: Frame) => {
    if (top !== null) stack.push(top);
    top = frame;
  };
  for (let i = 0; i < text.length;) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      let end = text.indexOf('"', i + 1);
      while (end > 0) {
        let slashes = 0;
        for (let k = end - 1; text.charCodeAt(k) === BACKSLASH; k--) slashes++;
        if (slashes % 2 === 0) break;
        end = text.indexOf('"', end + 1);
      }
      if (end < 0) return null;
      const frame = top as Frame | null;
      if (frame !== null && !frame.array && expectKey) {
        expectKey = false;
        if (frame.seen !== null) {
          const raw = text.slice(i + 1, end);
          key = raw.includes('\\') ? (JSON.parse(text.slice(i, end + 1)) as string) : raw;
          // An unknown key is kept as a Value map keeps it (the last of two): only known ones count.
          if (frame.level!.keys.has(key)) {
            if (frame.seen.has(key)) return { key, at: frame.path };
            frame.seen.add(key);
          }
        } else key = null;
      }
      i = end + 1;
      continue;
    }
    if (c === 0x7b /* { */) {
      const known = childLevel('objects');
      push({ level: known, array: false, seen: known === null ? null : new Set(), path: known === null ? '' : childPath(), index: 0 });
      expectKey = true;
    } else if (c === 0x5b /* [ */) {
      const items = childLevel('items');
      push({ level: items, array: true, seen: null, path: items === null ? '' : childPath(), index: 0 });
    } else if (c === 0x7d /* } */ || c === 0x5d /* ] */) {
      top = stack.pop() ?? null;
      expectKey = false;
    } else if (c === 0x2c /* , */) {
      const frame = top as Frame | null;
      if (frame !== null) {
        if (frame.array) frame.index++;
        else expectKey = true;
      }
    }
    i++;
  }
  return null;
}

/** Keys in `value`'s objects, at every depth; -1 past `MAX_WALK_DEPTH` (the caller then scans). */
function keyCount(value: unknown, depth: number): number {
  if (value === null || typeof value !== 'object') return 0;
  if (depth > MAX_WALK_DEPTH) return -1;
  let count = 0;
  if (Array.isArray(value)) {
    for (const item of value) {
      const n = keyCount(item, depth + 1);
      if (n < 0) return -1;
      count += n;
    }
    return count;
  }
  for (const key in value) {
    count++;
    const child = (value as Record<string, unknown>)[key];
    if (child !== null && typeof child === 'object') {
      const n = keyCount(child, depth + 1);
      if (n < 0) return -1;
      count += n;
    }
  }
  return count;
}

/** How deep {@link keyCount} walks (it recurses; the reader's value is not yet depth-checked). */
const MAX_WALK_DEPTH = 64;
const SPACED_KEY = /"[ \t\n\r]+:/;

/**
 * Whether `text` (parsed as `value`) may hold a key given twice in one object; never false when
 * it does. A key given twice is in `value` once, so the text holds more key tokens than `value`
 * has keys. Key tokens are counted without tokenizing: without an escaped backslash (`\\`) in the
 * text, a `"` right before a `:` closes a key, unless a backslash precedes it (an escaped quote
 * inside a string, `\":`); a key spaced from its colon (`"a" :`) is not counted so, and sends the
 * text to the scan. Native searches and one walk of `value`: a fraction of `JSON.parse`'s cost.
 */
export function mayDuplicateKey(text: string, value: unknown): boolean {
  if (text.includes('\\\\')) return true;
  let keys = 0;
  for (let at = text.indexOf('":'); at >= 0; at = text.indexOf('":', at + 2)) {
    if (text.charCodeAt(at - 1) !== BACKSLASH) keys++;
  }
  if (keys !== keyCount(value, 1)) return true;
  return SPACED_KEY.test(text);
}

/** The first duplicated known key of `text` (parsed as `value`), or null: {@link mayDuplicateKey}, then {@link duplicatedKeyIn}. */
export function duplicatedKnownKey(text: string, value: unknown, root: KeyLevel): DuplicateKey | null {
  return mayDuplicateKey(text, value) ? duplicatedKeyIn(text, root) : null;
}
