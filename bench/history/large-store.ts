/**
 * A large OpenClaw store for the issue-2 sync benchmark: `files` semantic files × `sections` `## `
 * sections each (50,000 records by default), and deterministic in-place edits of a fraction of them.
 */
import fs from 'node:fs';
import path from 'node:path';
import { body, prng } from './text';

export interface LargeStore {
  /** Workspace-relative path → section bodies (headings are derived from the indexes). */
  files: Map<string, string[]>;
  render(path: string): string;
  /** Edits `count` distinct sections in place (same heading, one line replaced); returns the touched files. */
  editSections(count: number): string[];
}

export function largeStore(opts: { files: number; sections: number; seed?: number }): LargeStore {
  const rand = prng(opts.seed ?? 7);
  const files = new Map<string, string[]>();
  for (let f = 0; f < opts.files; f++) {
    const path = `memory/semantic/topic-${String(f).padStart(4, '0')}.md`;
    files.set(path, Array.from({ length: opts.sections }, () => body(rand, 2)));
  }
  const paths = [...files.keys()];
  let edits = 0;
  return {
    files,
    render(path) {
      const sections = files.get(path)!;
      const name = path.slice(16, -3);
      return `# ${name}\n#tags: ${name}, bench\n\n${sections.map((b, i) => `## ${name} fact ${i}\n${b}\n`).join('\n')}`;
    },
    editSections(count) {
      const picked = new Set<string>();
      while (picked.size < count) {
        const f = Math.floor(rand() * paths.length);
        picked.add(`${f}:${Math.floor(rand() * opts.sections)}`);
      }
      const touched = new Set<string>();
      for (const key of picked) {
        const [f, s] = key.split(':').map(Number) as [number, number];
        const path = paths[f]!;
        edits++;
        files.get(path)![s] = `Edit ${edits}: ${body(rand, 2)}`;
        touched.add(path);
      }
      return [...touched].sort();
    },
  };
}

/**
 * The bench's 50,000-record store written as a workspace under `root/ws` (its `.alf-agent-id` the
 * bench agent's), every file's mtime the clock's: `edit(count)` edits sections in place and writes
 * the touched files again. For the profiling and CPU scripts that sync it (`bench/sync-*.ts`).
 */
export function largeWorkspace(args: { root: string; agentId: string; now: () => number }): { workspace: string; store: LargeStore; edit(count: number): void } {
  const store = largeStore({ files: 500, sections: 100 });
  const workspace = path.join(args.root, 'ws');
  const write = (rels: Iterable<string>) => {
    for (const rel of rels) {
      const file = path.join(workspace, rel);
      fs.mkdirSync(path.dirname(file), { recursive: true });
      fs.writeFileSync(file, store.render(rel));
      fs.utimesSync(file, new Date(args.now()), new Date(args.now()));
    }
  };
  fs.mkdirSync(workspace, { recursive: true });
  fs.writeFileSync(path.join(workspace, '.alf-agent-id'), args.agentId);
  write(store.files.keys());
  return { workspace, store, edit: (count) => write(store.editSections(count)) };
}
