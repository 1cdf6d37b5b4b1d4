import { randomUUID } from 'node:crypto';
import { mkdirSync, openSync, fsyncSync, closeSync, writeSync, renameSync, rmSync } from 'node:fs';
import { readFile, writeFile, rm, readdir, stat } from 'node:fs/promises';
import path from 'node:path';

/** What a presigned upload was initiated for. */
export interface PendingUpload {
  id: string;
  agentId: string;
  tenantId: string;
  kind: 'snapshot' | 'delta';
  /** Delta uploads: the base sequence checked at initiate time and again at confirm. */
  baseSequence: number | null;
  expiresAt: string;
  /** Set once confirmed: the reply every later confirm of this upload answers with (idempotent confirm). */
  confirmed?: { status: number; body: Record<string, unknown> };
}

const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/**
 * The temp area of presigned-style uploads (`<data>/uploads/`): `<id>.json` says what
 * the upload is for, `<id>.bin` holds the PUT bytes once complete (temp + fsync + rename,
 * so a confirm never sees half an upload). Nothing here is in the ledger until confirm.
 */
export class UploadStore {
  private readonly dir: string;

  constructor(dataDir: string) {
    this.dir = path.join(dataDir, 'uploads');
    mkdirSync(this.dir, { recursive: true });
  }

  /** Records a new pending upload and returns it. */
  async create(input: Omit<PendingUpload, 'id'>): Promise<PendingUpload> {
    const upload: PendingUpload = { id: randomUUID(), ...input };
    await writeFile(this.metaPath(upload.id), JSON.stringify(upload), { flag: 'wx' });
    return upload;
  }

  /** The pending upload with this id, or null (unknown, malformed id). */
  async get(id: string): Promise<PendingUpload | null> {
    if (!UUID_RE.test(id)) return null;
    try {
      return JSON.parse(await readFile(this.metaPath(id), 'utf8')) as PendingUpload;
    } catch {
      return null;
    }
  }

  /** Stores the uploaded bytes durably, replacing any earlier PUT of the same upload. */
  putBytes(id: string, bytes: Uint8Array): void {
    const temp = path.join(this.dir, `${id}.${process.pid}.${randomUUID()}.part`);
    const fd = openSync(temp, 'w', 0o600);
    try {
      writeSync(fd, bytes);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(temp, this.bytesPath(id));
  }

  /** The uploaded bytes, or null when nothing was PUT yet. */
  async readBytes(id: string): Promise<Uint8Array | null> {
    try {
      return new Uint8Array(await readFile(this.bytesPath(id)));
    } catch {
      return null;
    }
  }

  /**
   * Marks an upload confirmed with the reply it got: its bytes go (they are in the ledger now), its
   * record stays until it expires, so a repeated confirm answers the same instead of ingesting again.
   */
  markConfirmed(upload: PendingUpload, confirmed: NonNullable<PendingUpload['confirmed']>): void {
    const temp = path.join(this.dir, `${upload.id}.${process.pid}.${randomUUID()}.part`);
    const fd = openSync(temp, 'w', 0o600);
    try {
      writeSync(fd, JSON.stringify({ ...upload, confirmed }));
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(temp, this.metaPath(upload.id));
    rmSync(this.bytesPath(upload.id), { force: true });
  }

  /** Forgets an upload (after a refused confirm, or expiry). */
  async remove(id: string): Promise<void> {
    await rm(this.bytesPath(id), { force: true });
    await rm(this.metaPath(id), { force: true });
  }

  /** Removes every upload of an agent (agent deletion). */
  async removeAgent(agentId: string): Promise<number> {
    let removed = 0;
    for (const name of await readdir(this.dir)) {
      if (!name.endsWith('.json')) continue;
      const upload = await this.get(name.slice(0, -'.json'.length));
      if (upload?.agentId === agentId) {
        await this.remove(upload.id);
        removed += 1;
      }
    }
    return removed;
  }

  /** Drops expired uploads and stale partial files (older than `graceMs`). */
  async sweep(now: Date, graceMs = 60 * 60 * 1000): Promise<void> {
    for (const name of await readdir(this.dir)) {
      const file = path.join(this.dir, name);
      if (name.endsWith('.json')) {
        const upload = await this.get(name.slice(0, -'.json'.length));
        if (upload && Date.parse(upload.expiresAt) + graceMs < now.getTime()) await this.remove(upload.id);
      } else if (name.endsWith('.part')) {
        const info = await stat(file).catch(() => null);
        if (info && info.mtimeMs + graceMs < now.getTime()) rmSync(file, { force: true });
      }
    }
  }

  private metaPath(id: string): string {
    return path.join(this.dir, `${id}.json`);
  }

  private bytesPath(id: string): string {
    return path.join(this.dir, `${id}.bin`);
  }
}
