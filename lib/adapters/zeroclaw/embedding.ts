import type { JsonObject } from '@/lib/core/json';

/** Embedding model ZeroClaw uses with its default (OpenAI) provider. */
export const ZEROCLAW_EMBEDDING_MODEL = 'openai/text-embedding-3-small';

/** How an embedding BLOB was stored, kept in `raw_source_format.embedding_encoding`. */
export type EmbeddingEncoding = 'f32le' | 'f64le' | 'base64';

export interface DecodedEmbedding {
  encoding: EmbeddingEncoding;
  /** The vector, or null when the BLOB is not a clean float array (then `base64` holds it). */
  vector: number[] | null;
  base64?: string;
}

/**
 * Decodes a ZeroClaw embedding BLOB (CONTRACT §4.4): packed little-endian f32 when
 * `length / 4` is a dimension count in 64..4096, else f64. A BLOB of neither shape,
 * or one holding a value JSON cannot carry (non-finite ones, and -0, which the archive's
 * JSON writes as 0), is kept as base64 so a restore can write it back byte-exact.
 */
export function decodeEmbedding(blob: Uint8Array): DecodedEmbedding {
  const view = new DataView(blob.buffer, blob.byteOffset, blob.byteLength);
  const f32Dims = blob.byteLength / 4;
  let vector: number[] | null = null;
  let encoding: EmbeddingEncoding = 'base64';
  if (blob.byteLength % 4 === 0 && f32Dims >= 64 && f32Dims <= 4096) {
    vector = Array.from({ length: f32Dims }, (_, i) => view.getFloat32(i * 4, true));
    encoding = 'f32le';
  } else if (blob.byteLength % 8 === 0 && blob.byteLength > 0) {
    vector = Array.from({ length: blob.byteLength / 8 }, (_, i) => view.getFloat64(i * 8, true));
    encoding = 'f64le';
  }
  if (vector === null || !vector.every(isJsonExact)) {
    return { encoding: 'base64', vector: null, base64: Buffer.from(blob).toString('base64') };
  }
  return { encoding, vector };
}

/** True when a value survives JSON text unchanged, down to its sign bit. */
function isJsonExact(value: number): boolean {
  return Number.isFinite(value) && !Object.is(value, -0);
}

/** Encodes a vector back into a BLOB with the encoding it was read with. */
export function encodeEmbedding(vector: readonly number[], encoding: 'f32le' | 'f64le'): Buffer {
  const width = encoding === 'f32le' ? 4 : 8;
  const out = Buffer.alloc(vector.length * width);
  vector.forEach((value, i) => {
    if (encoding === 'f32le') out.writeFloatLE(value, i * 4);
    else out.writeDoubleLE(value, i * 8);
  });
  return out;
}

/** The record's `embeddings` entry for a decoded vector. */
export function embeddingEntry(vector: number[], computedAt: string): JsonObject {
  return {
    model: ZEROCLAW_EMBEDDING_MODEL,
    dimensions: vector.length,
    vector,
    computed_at: computedAt,
    source: 'runtime',
  };
}
