/**
 * The handshake between a packer that removes a blob's whole file (`FsBlobStore.packStored`) and a
 * delete that removes blobs some packed blob may be read against (`FsBlobStore.deleteMany`), when
 * they run in two processes. Without it each side checks, then acts, and the other can act in
 * between: the packer finds its bases alive; a delete marks one, rewrites the packer's new packed
 * blob whole and removes the base; then the packer removes that whole file — the blob is gone.
 *
 * The packer announces each such step (a file `<flat key>.packing-<pid>` naming the blob and its
 * bases) before it looks at the delete marks (`.deleting`); a delete writes its marks before it
 * looks at the announcements, and waits until every one naming a doomed key has ended or its
 * process is dead. Of two processes that each write first and read second, at least one sees the
 * other: the packer sees the mark and leaves the blob whole, or the delete waits, then finds the
 * packed blob and rewrites it whole before the base goes.
 */
import fs from 'node:fs';
import path from 'node:path';
import { LedgerError } from './errors';
import { processAlive } from '@/lib/core/process-alive';

const ANNOUNCEMENT = /\.packing-(\d+)$/;

interface Announcement {
  pid: number;
  key: string;
  bases: string[];
}

/** Announces that this process is about to pack `key` against `bases`; returns the file to pass to `endPacking`. */
export function announcePacking(root: string, key: string, bases: string[]): string {
  const file = path.join(root, `${key.split('/').join('~')}.packing-${process.pid}`);
  // Written aside and renamed: a reader sees the whole announcement or none.
  const temp = `${file}.tmp`;
  fs.writeFileSync(temp, JSON.stringify({ pid: process.pid, key, bases } satisfies Announcement));
  fs.renameSync(temp, file);
  return file;
}

export function endPacking(file: string): void {
  fs.rmSync(file, { force: true });
}

function readAnnouncements(root: string): { file: string; announcement: Announcement | null }[] {
  let names: string[];
  try {
    names = fs.readdirSync(root);
  } catch {
    return [];
  }
  return names.filter((name) => ANNOUNCEMENT.test(name)).map((name) => {
    const file = path.join(root, name);
    try {
      const parsed = JSON.parse(fs.readFileSync(file, 'utf8')) as Announcement;
      return { file, announcement: Array.isArray(parsed.bases) ? parsed : null };
    } catch {
      return { file, announcement: null }; // ended meanwhile, or left unwritten by a machine crash
    }
  });
}

/**
 * Waits until no live process is packing a blob whose key or bases are in `doomed` (their marks
 * are written): then every packed blob that reads a doomed key is on disk for the caller to see.
 * Throws `busy` after `timeoutMs`: a packer stopped (SIGSTOP) in its step must not be overtaken.
 */
export async function awaitPackingOf(root: string, doomed: ReadonlySet<string>, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const busy = readAnnouncements(root).find(({ announcement: a }) =>
      a !== null && (doomed.has(a.key) || a.bases.some((b) => doomed.has(b))) && processAlive(a.pid));
    if (!busy) return;
    if (Date.now() > deadline) {
      throw new LedgerError('busy', `blob ${busy.announcement!.key} is being packed by process ${busy.announcement!.pid}: nothing was deleted; try again`);
    }
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** Removes the announcements of processes that died in their step (run by a packer that holds the packer lock). */
export function removeDeadAnnouncements(root: string): void {
  for (const { file, announcement } of readAnnouncements(root)) {
    if (announcement === null || !processAlive(announcement.pid)) fs.rmSync(file, { force: true });
  }
  let names: string[] = [];
  try {
    names = fs.readdirSync(root);
  } catch {
    // no blobs yet
  }
  for (const name of names) {
    const pid = /\.packing-(\d+)\.tmp$/.exec(name)?.[1];
    if (pid !== undefined && !processAlive(Number(pid))) fs.rmSync(path.join(root, name), { force: true });
  }
}
