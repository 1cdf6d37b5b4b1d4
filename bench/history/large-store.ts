/**
 * A large OpenClaw store for the issue-2 sync benchmark: `files` semantic files × `sections` `## `
 * sections each (50,000 records by default), and deterministic in-place edits of a fraction of them.
 */
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
