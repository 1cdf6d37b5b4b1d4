import type { ArchiveLimits } from '@/lib/core/archive/types';

/** Caps the protocol service enforces on untrusted requests. */
export interface ServerLimits {
  /** Largest request body accepted on any protocol route (direct uploads included). */
  maxBodyBytes: number;
  /** Largest body accepted on a signed presigned-style upload URL. */
  maxUploadBytes: number;
  /** How long a signed upload URL stays valid. */
  uploadUrlTtlSeconds: number;
  /** How long a signed download URL stays valid. */
  downloadUrlTtlSeconds: number;
  /**
   * Uploads of at least this many bytes are parsed, checked and indexed on the ingest thread
   * (lib/storage/offload.ts). Archives compress about 10:1: 32 KiB is a snapshot of a few thousand
   * records, below which the hand-over costs more than it saves.
   */
  ingestThreadMinBytes: number;
  /**
   * A request body from which no byte arrives for this long (ms) is answered with a 408 and its
   * connection closed (node-body.ts); a slow body that keeps arriving is not cut.
   */
  bodyIdleMs: number;
  /**
   * A request not all arrived after this long (ms) is answered with a 408 and its connection closed
   * (http-server.ts) — Node's `requestTimeout`, but for a body the server is reading (node-body.ts):
   * that one is cut only when it stops arriving (`bodyIdleMs`), so a long upload that keeps moving
   * is never cut for its length. The request head has Node's own limit (`headersTimeout`, 60 s).
   */
  requestTimeoutMs: number;
  /**
   * A connection on which a reply has begun and no byte leaves for this long (ms) — a client that
   * stopped reading a download — is closed (http-server.ts). A reply still being made is not cut.
   */
  socketIdleMs: number;
  /** Caps passed to the archive reader (decompressed size, entry count, line length). */
  archive: Partial<ArchiveLimits>;
}

export const MIB = 1024 * 1024;

/** The reference CLI switches to the presigned flow strictly above this size (CONTRACT §1.2). */
export const DIRECT_UPLOAD_MAX_BYTES = 6_000_000;

export const DEFAULT_SERVER_LIMITS: ServerLimits = {
  maxBodyBytes: 64 * MIB,
  maxUploadBytes: 256 * MIB,
  uploadUrlTtlSeconds: 15 * 60,
  downloadUrlTtlSeconds: 15 * 60,
  ingestThreadMinBytes: 32 * 1024,
  bodyIdleMs: 30_000,
  requestTimeoutMs: 300_000,
  socketIdleMs: 120_000,
  archive: {},
};

/** Defaults overridden by whatever the caller set. */
export function resolveLimits(overrides: Partial<ServerLimits> = {}): ServerLimits {
  return {
    ...DEFAULT_SERVER_LIMITS,
    ...overrides,
    archive: { ...DEFAULT_SERVER_LIMITS.archive, ...overrides.archive },
  };
}
