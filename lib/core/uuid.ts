import { nodeCrypto } from './builtin';

declare const uuidBrand: unique symbol;
/** A lowercase hyphenated UUID string. */
export type Uuid = string & { readonly [uuidBrand]: true };

const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function isUuid(value: unknown): value is Uuid {
  return typeof value === 'string' && UUID_RE.test(value);
}

/** Parses any-version UUID text into its canonical lowercase form, or null. */
export function parseUuid(value: string): Uuid | null {
  const trimmed = value.trim();
  return UUID_RE.test(trimmed) ? (trimmed.toLowerCase() as Uuid) : null;
}

function uuidBytes(uuid: string): Buffer {
  return Buffer.from(uuid.replace(/-/g, ''), 'hex');
}

function formatUuid(bytes: Uint8Array): Uuid {
  const hex = Buffer.from(bytes).toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 32)}` as Uuid;
}

/** A namespace UUID whose 16 bytes are the given ASCII text (e.g. `openclaw-alf-ns1`). */
export function namespaceFromBytes(text: string): Uuid {
  const bytes = Buffer.from(text, 'utf8');
  if (bytes.length !== 16) throw new Error(`namespace text must be 16 bytes, got ${bytes.length}: ${text}`);
  return formatUuid(bytes);
}

/** RFC 4122 name-based UUID, version 5 (SHA-1). Names are UTF-8. */
export function uuidV5(namespace: string, name: string): Uuid {
  const text = namespaceText(namespace);
  if (text !== null) return uuidFromSha1Hex(nodeCrypto().hash('sha1', text + name, 'hex'));
  const digest = nodeCrypto().hash('sha1', Buffer.concat([namespaceBytes(namespace), Buffer.from(name, 'utf8')]), 'buffer');
  const bytes = digest.subarray(0, 16);
  bytes[6] = (bytes[6]! & 0x0f) | 0x50;
  bytes[8] = (bytes[8]! & 0x3f) | 0x80;
  return formatUuid(bytes);
}

/** Random version-4 UUID, from an injectable source of random bytes. */
export function uuidV4(randomBytes: (n: number) => Uint8Array): Uuid {
  const bytes = Buffer.from(randomBytes(16));
  bytes[6] = (bytes[6]! & 0x0f) | 0x40;
  bytes[8] = (bytes[8]! & 0x3f) | 0x80;
  return formatUuid(bytes);
}

export function sha256Hex(data: string | Uint8Array): string {
  return nodeCrypto().hash('sha256', typeof data === 'string' ? data : Buffer.from(data.buffer, data.byteOffset, data.byteLength), 'hex');
}

/** Namespaces repeat for every id minted: parse each once. */
const namespaceCache = new Map<string, Buffer>();
function namespaceBytes(namespace: string): Buffer {
  let bytes = namespaceCache.get(namespace);
  if (!bytes) {
    bytes = uuidBytes(namespace);
    if (namespaceCache.size < 64) namespaceCache.set(namespace, bytes);
  }
  return bytes;
}

/**
 * A namespace whose 16 bytes are all ASCII, as text: hashing `text + name` as one UTF-8 string
 * hashes exactly the bytes namespace ‖ UTF-8(name), without building buffers. Null otherwise.
 */
const namespaceTextCache = new Map<string, string | null>();
function namespaceText(namespace: string): string | null {
  let text = namespaceTextCache.get(namespace);
  if (text === undefined) {
    const bytes = uuidBytes(namespace);
    text = bytes.length === 16 && bytes.every((b) => b < 0x80) ? bytes.toString('latin1') : null;
    if (namespaceTextCache.size < 64) namespaceTextCache.set(namespace, text);
  }
  return text;
}

const HEX = '0123456789abcdef';

/** The version-5 UUID of a SHA-1 digest in hex: version nibble 5, RFC 4122 variant. */
function uuidFromSha1Hex(hex: string): Uuid {
  const variant = HEX[(parseInt(hex[16]!, 16) & 0x3) | 0x8]!;
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-5${hex.slice(13, 16)}-${variant}${hex.slice(17, 20)}-${hex.slice(20, 32)}` as Uuid;
}
