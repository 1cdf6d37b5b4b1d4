/**
 * A scripted workspace on disk. Every write stamps the file's mtime with the scenario clock,
 * because the OpenClaw and Hermes adapters date records by mtime: real-time mtimes would make
 * two seedings of the same "today" differ.
 */
import { mkdir, readFile, rename, rm, utimes, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Clock } from '@/lib/core/clock';

export interface ScriptedWorkspace {
  root: string;
  write(rel: string, text: string): Promise<void>;
  /** Writes only when the text differs from what is on disk (an untouched file keeps its mtime). */
  writeIfChanged(rel: string, text: string): Promise<boolean>;
  append(rel: string, text: string): Promise<void>;
  read(rel: string): Promise<string>;
  /** `mv`: the file keeps its mtime, as an archiver's rename does. */
  move(from: string, to: string): Promise<void>;
  remove(rel: string): Promise<void>;
}

export function scriptedWorkspace(root: string, now: Clock): ScriptedWorkspace {
  const abs = (rel: string): string => path.join(root, ...rel.split('/'));
  const stamp = async (rel: string): Promise<void> => {
    const at = now();
    await utimes(abs(rel), at, at);
  };
  return {
    root,
    async write(rel, text) {
      await mkdir(path.dirname(abs(rel)), { recursive: true });
      await writeFile(abs(rel), text, 'utf8');
      await stamp(rel);
    },
    async writeIfChanged(rel, text) {
      const before = await readFile(abs(rel), 'utf8').catch(() => null);
      if (before === text) return false;
      await this.write(rel, text);
      return true;
    },
    async append(rel, text) {
      const before = await readFile(abs(rel), 'utf8').catch(() => '');
      await this.write(rel, before + text);
    },
    read: (rel) => readFile(abs(rel), 'utf8'),
    async move(from, to) {
      await mkdir(path.dirname(abs(to)), { recursive: true });
      await rename(abs(from), abs(to));
    },
    remove: (rel) => rm(abs(rel), { force: true }),
  };
}
