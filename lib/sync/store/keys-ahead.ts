/**
 * Keying ahead: a process that stays (`lineage watch`) keys the workspace's changed files as their
 * change events come, against the state the next sync reconciles with — git's fsmonitor taken one
 * step further, since keying a changed file (chunking it, its sections' keys taken over from its
 * previous keying or hashed) is the largest part of a small sync's export.
 *
 * A sync takes a file's keying from here only when it was made from the very bytes the sync reads
 * (their digest: a sha256 over the agent, path, tier and bytes), with the same mtime, against the
 * very same state (the sha256 of its index file), in the same layout context and workspace. That is
 * everything a keying depends on (export-changes.ts `keyReadFile`, which both run), so the sync's
 * result is the one it would have made itself; anything else — a file changed again since, a state
 * another process wrote meanwhile, a keying that failed — is keyed by the sync as before.
 */
import { lstatSync } from 'node:fs';
import path from 'node:path';
import { keyReadFile, type PriorFiles } from '@/lib/adapters/openclaw/export-changes';
import { isRecordBearing, isV41Layout } from '@/lib/adapters/openclaw/export-parts';
import { tierFor } from '@/lib/adapters/openclaw/handlers';
import { fileDigest, type KeyedFile } from '@/lib/adapters/openclaw/records';
import { readWithMtime } from '@/lib/adapters/openclaw/workspace-files';
import { readOrMintAgentId } from '@/lib/adapters/shared/agent-id';
import { asUint8Array } from '@/lib/core/bytes';
import { deflateAhead } from '@/lib/core/archive/deflate-ahead';
import { statePaths } from '../state';
import { readIndex } from './index-file';
import { openStore } from './open-store';
import { storePaths } from './paths';

interface Ahead {
  /** The state it was keyed against (its index file's sha256) and the layout context. */
  state: string;
  context: string;
  /** Its digest and mtime when it was read. */
  digest: string;
  mtime: string;
  bytes: Uint8Array;
  keyed: KeyedFile;
}

/** Files keyed between two turns of the event loop (a socket's request is answered in between). */
const FILES_PER_TURN = 8;

/** How long after a change event its file is read (an editor's write is usually whole by then). */
const SETTLE_MS = 5;

export class KeysAhead {
  private readonly workspace: string;
  private readonly pending = new Set<string>();
  private readonly entries = new Map<string, Ahead>();
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;
  private paused = 0;

  /** `keyed(n)`: called after a round of keying that kept n files (a watch says so on its stderr). */
  constructor(workspace: string, private readonly alfHome: string, private readonly keyed?: (n: number) => void) {
    this.workspace = path.resolve(workspace);
  }

  /** A file of the workspace changed (its path relative to the workspace, '/'-separated). */
  changed(rel: string): void {
    if (!isRecordBearing(rel)) return;
    this.pending.add(rel);
    this.schedule();
  }

  /** Runs `sync` with the keying paused (both would take the same thread), then goes on with what is pending. */
  async during<T>(sync: () => Promise<T>): Promise<T> {
    this.paused++;
    try {
      await this.running;
      return await sync();
    } finally {
      this.paused--;
      this.schedule();
    }
  }

  /**
   * What a sync of the state whose index's sha256 is `state` takes (PriorFiles.ahead), for its layout
   * context; `taken` counts the files taken. Each keying is taken at most once.
   */
  forState(state: string, workspace: string): { ahead: (context: string) => (rel: string, digest: string, mtime: string) => { keyed: KeyedFile; bytes: Uint8Array } | undefined; readonly taken: number } {
    let taken = 0;
    const same = path.resolve(workspace) === this.workspace;
    return {
      ahead: (context) => (rel, digest, mtime) => {
        const entry = same ? this.entries.get(rel) : undefined;
        if (!entry || entry.state !== state || entry.context !== context || entry.digest !== digest || entry.mtime !== mtime) return undefined;
        this.entries.delete(rel);
        taken++;
        return { keyed: entry.keyed, bytes: entry.bytes };
      },
      get taken() {
        return taken;
      },
    };
  }

  /** Resolves once nothing is pending or being keyed (tests). */
  async settled(): Promise<void> {
    while (this.timer !== null || this.running !== null) {
      if (this.timer !== null) {
        clearTimeout(this.timer);
        this.timer = null;
        this.start();
      }
      await this.running;
    }
  }

  /** Stops: nothing more is keyed, and what was is dropped. */
  close(): void {
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
    this.paused++;
    this.pending.clear();
    this.entries.clear();
  }

  private schedule(): void {
    if (this.paused > 0 || this.timer !== null || this.running !== null || this.pending.size === 0) return;
    this.timer = setTimeout(() => {
      this.timer = null;
      this.start();
    }, SETTLE_MS);
    this.timer.unref();
  }

  private start(): void {
    if (this.paused > 0 || this.running !== null) return;
    this.running = this.keyPending().catch(() => {
      // No state to key against (damaged, being replaced): the sync keys for itself.
      this.pending.clear();
    }).finally(() => {
      this.running = null;
      this.schedule();
    });
  }

  private async keyPending(): Promise<void> {
    const agentId = await readOrMintAgentId({ workspace: this.workspace, runtime: 'openclaw', persist: false });
    const dir = statePaths(this.alfHome, agentId).dir;
    const read = await readIndex(storePaths(dir, agentId).index);
    if (read === null) {
      this.pending.clear();
      return;
    }
    // Keyings against another state are of no use any more.
    const state = read.digest();
    for (const [rel, entry] of this.entries) if (entry.state !== state) this.entries.delete(rel);
    const v41Layout = await isV41Layout(this.workspace);
    const context = v41Layout ? 'v41' : 'flat';
    const store = openStore(dir, agentId, read);
    let kept = 0;
    try {
      const prior = store.prior(context, this.workspace);
      let keyed = 0;
      for (const rel of this.pending) {
        if (this.paused > 0) return;
        this.pending.delete(rel);
        this.entries.delete(rel);
        const entry = this.keyFile(rel, { agentId, v41Layout, prior });
        if (entry) {
          this.entries.set(rel, { state, context, ...entry });
          kept++;
        }
        if (++keyed % FILES_PER_TURN === 0) await new Promise((resolve) => setImmediate(resolve));
      }
    } finally {
      store.log.close();
      // Said also of a round a sync paused: what it kept is there for that sync.
      if (kept > 0) this.keyed?.(kept);
    }
  }

  /** One file keyed as the sync's export keys a file it reads, or null (gone, not a plain file, unchanged bytes, not UTF-8). */
  private keyFile(rel: string, of: { agentId: string; v41Layout: boolean; prior: PriorFiles }): Omit<Ahead, 'state' | 'context'> | null {
    const { agentId, v41Layout, prior } = of;
    const abs = path.join(this.workspace, ...rel.split('/'));
    try {
      // Plain files only (the export follows a link only inside the workspace: it keys those itself).
      if (!lstatSync(abs, { throwIfNoEntry: false })?.isFile()) return null;
      const file = readWithMtime(abs);
      const bytes = asUint8Array(file.bytes);
      const digest = fileDigest(agentId, rel, tierFor(rel, v41Layout), bytes);
      // Bytes the state holds: the sync takes their keys from it without keying.
      if (prior.digest(rel) === digest) return null;
      deflateAhead(bytes);
      const result = keyReadFile({ agentId, rel, bytes, mtime: file.mtime, v41Layout, digest, prior });
      return result.keyed ? { digest, mtime: file.mtime, bytes, keyed: result.keyed } : null;
    } catch {
      // Gone or replaced meanwhile: its next change event, or the sync, keys it.
      return null;
    }
  }
}
