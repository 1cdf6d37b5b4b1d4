/**
 * A directory tree's file changes, one inotify watch per directory (`fs.watch` of each, not
 * recursive). Node 20's own recursive watch on Linux watches every file besides, stats it on each
 * event and lists its whole directory again on each of the directory's: for a 500-file workspace,
 * a 1% edit cost the watching process ~0.6–1 s of CPU (measured), which a watch needs for its syncs.
 *
 * A directory's watch names the entry that changed in it: the file's path relative to the root is
 * reported ('/'-separated; null when the system gave no name). A directory that appears is watched
 * too, and its files reported (they may have been written before its watch was set); a link is
 * never followed. A directory that goes away drops its watch; one its parent's watch names again
 * (made again, renamed, its mode changed) is watched anew and its files reported.
 *
 * The root's watch failing to start throws; a directory under it that cannot be watched (out of
 * inotify watches, say) is reported to `failed` with its path relative to the root, and the others
 * are still watched.
 *
 * The root itself is looked for by name in its parent directory (one more watch, of that directory's
 * entries only): the root removed or moved away drops every watch and is said to `root.gone`; a
 * directory there again under its name (made again, restored, moved back) is watched anew, its files
 * reported, and said to `root.back`. (A watch follows a directory, not its path: without this, a
 * workspace removed and made again was never watched again, its changes left to `--interval`.)
 */
import fs from 'node:fs';
import path from 'node:path';

export interface TreeWatch {
  close(): void;
}

export function watchTree(
  dir: string, changed: (rel: string | null) => void, failed: (error: Error, rel: string) => void,
  root: { gone?: () => void; back?: () => void } = {},
): TreeWatch {
  const rootDir = path.resolve(dir);
  const watchers = new Map<string, fs.FSWatcher>();
  let closed = false;
  /** The inode of the directory watched as the root (null: none there now). */
  let rootIno: number | null = null;
  /** The inode of the directory at `abs`, a link to one followed (a workspace path may be a link). */
  const dirIno = (abs: string): number | null => {
    try {
      const info = fs.statSync(abs, { throwIfNoEntry: false });
      return info?.isDirectory() ? info.ino : null;
    } catch {
      return null;
    }
  };

  const relOf = (abs: string) => path.relative(rootDir, abs).split(path.sep).join('/');
  const unwatch = (dir: string) => {
    for (const [d, watcher] of watchers) {
      if (d === dir || d.startsWith(`${dir}${path.sep}`)) {
        watcher.close();
        watchers.delete(d);
      }
    }
  };
  /** Watches `dir` and the directories under it; `report`: its files are reported (a directory that appeared). */
  const watchDir = (dir: string, report: boolean) => {
    if (closed || watchers.has(dir)) return;
    let watcher: fs.FSWatcher;
    try {
      watcher = fs.watch(dir, (_event, name) => {
        if (closed) return;
        if (name === null) {
          changed(null);
          return;
        }
        // The root's own removal or move, named by its own watch: said by checkRoot.
        if (dir === rootDir && name === path.basename(rootDir) && dirIno(rootDir) !== rootIno) {
          checkRoot();
          return;
        }
        const abs = path.join(dir, name);
        // A directory that came (watched from now on) or went (its watch dropped).
        try {
          const info = fs.lstatSync(abs, { throwIfNoEntry: false });
          // A directory named by its parent's watch came, went or was replaced (removed and made
          // again before its removal was seen): watched anew, its files reported.
          if (watchers.has(abs)) unwatch(abs);
          if (info?.isDirectory()) watchDir(abs, true);
        } catch (error) {
          failed(error as Error, relOf(abs));
        }
        changed(relOf(abs));
      });
    } catch (error) {
      // Gone before it was watched: nothing to watch. Out of inotify watches: said once, by the caller.
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
      throw error;
    }
    watcher.on('error', (error) => {
      // The directory itself was removed, most often: its watch is dropped.
      if (watchers.get(dir) === watcher) unwatch(dir);
      if (dir === rootDir) checkRoot();
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT' && (error as NodeJS.ErrnoException).code !== 'EPERM') failed(error, relOf(dir));
    });
    watchers.set(dir, watcher);
    let entries: fs.Dirent[];
    try {
      entries = fs.readdirSync(dir, { withFileTypes: true });
    } catch {
      return;
    }
    for (const entry of entries) {
      const abs = path.join(dir, entry.name);
      if (entry.isDirectory()) watchDir(abs, report);
      else if (report) changed(relOf(abs));
    }
  };

  /** The root gone (its watches dropped), or a directory there again under its name, or another one in its place (watched, its files reported). */
  const checkRoot = () => {
    if (closed) return;
    const now = dirIno(rootDir);
    if (now === rootIno) return;
    if (rootIno !== null) {
      unwatch(rootDir);
      rootIno = null;
    }
    if (now === null) {
      root.gone?.();
      return;
    }
    rootIno = now;
    try {
      watchDir(rootDir, true);
    } catch (error) {
      failed(error as Error, '');
      return;
    }
    root.back?.();
  };

  rootIno = dirIno(rootDir);
  try {
    watchDir(rootDir, false);
  } catch (error) {
    for (const watcher of watchers.values()) watcher.close();
    throw error;
  }
  // The root's name in its parent: removed, moved away, made again. Not watched (the parent
  // unreadable, say): the root's removal is still seen by its own watch, its return is not.
  let parent: fs.FSWatcher | null = null;
  const parentDir = path.dirname(rootDir);
  if (parentDir !== rootDir) {
    try {
      parent = fs.watch(parentDir, (_event, name) => {
        if (name === null || name === path.basename(rootDir)) checkRoot();
      });
      parent.on('error', () => {
        parent?.close();
        parent = null;
      });
    } catch {
      parent = null;
    }
  }
  return {
    close() {
      closed = true;
      parent?.close();
      for (const watcher of watchers.values()) watcher.close();
      watchers.clear();
    },
  };
}
