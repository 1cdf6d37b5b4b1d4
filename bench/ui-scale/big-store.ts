/**
 * The one large OpenClaw agent of the ui-scale fleet: `memories` records in semantic files of 100
 * `## ` sections each (the issue-2 sync bench's store shape: prose from bench/history/text.ts), and
 * `syncs` turns of a busy agent: a few sections edited in place every turn, a section added every
 * 7th and one removed every 23rd, and one "hot" section (the first of the first file) edited every
 * 10th turn, so its lineage has hundreds of versions. Turn 0 writes the whole store.
 */
import { body, prng } from '../history/text';
import type { TurnChange } from '../history/generate';

export const SECTIONS_PER_FILE = 100;
export const HOT_EVERY = 10;
export const HOT_FILE = 'memory/semantic/topic-0000.md';
export const HOT_HEADING = 'topic-0000 fact 0';

const STATIC: Record<string, string> = {
  'SOUL.md': '# Soul\n\nKeeps a very large memory.\n',
  'IDENTITY.md': '# Identity\n\nName: Archive\nRole: knowledge base agent\n',
};

interface Section { heading: string; body: string }

export class BigStore {
  private readonly rand: () => number;
  private readonly files = new Map<string, Section[]>();
  private readonly paths: string[];
  private turnNo = -1;
  private added = 0;

  constructor(readonly memories: number, private readonly timeOf: (turn: number) => Date, seed = 7) {
    this.rand = prng(seed);
    const fileCount = Math.max(1, Math.ceil(memories / SECTIONS_PER_FILE));
    let left = memories;
    for (let f = 0; f < fileCount; f++) {
      const name = `topic-${String(f).padStart(4, '0')}`;
      const n = Math.min(SECTIONS_PER_FILE, left);
      left -= n;
      this.files.set(`memory/semantic/${name}.md`, Array.from({ length: n }, (_, i) => ({ heading: `${name} fact ${i}`, body: body(this.rand, 2) })));
    }
    this.paths = [...this.files.keys()];
  }

  private render(path: string): string {
    const name = path.slice(16, -3);
    return `# ${name}\n#tags: ${name}, bench\n\n${this.files.get(path)!.map((s) => `## ${s.heading}\n${s.body}\n`).join('\n')}`;
  }

  private pickFile(): string {
    return this.paths[Math.floor(this.rand() * this.paths.length)]!;
  }

  next(): TurnChange {
    const turn = ++this.turnNo;
    const dirty = new Set<string>();
    if (turn === 0) {
      for (const p of this.paths) dirty.add(p);
      dirty.add('SOUL.md').add('IDENTITY.md');
    } else {
      const edits = 2 + Math.floor(this.rand() * 4);
      for (let e = 0; e < edits; e++) {
        const p = this.pickFile();
        const sections = this.files.get(p)!;
        const i = Math.floor(this.rand() * sections.length);
        sections[i] = { heading: sections[i]!.heading, body: `Edit ${turn}.${e}: ${body(this.rand, 2)}` };
        dirty.add(p);
      }
      if (turn % HOT_EVERY === 0) {
        this.files.get(HOT_FILE)![0] = { heading: HOT_HEADING, body: `Revision ${turn / HOT_EVERY}: ${body(this.rand, 3)}` };
        dirty.add(HOT_FILE);
      }
      if (turn % 7 === 0) {
        const p = this.pickFile();
        this.files.get(p)!.push({ heading: `${p.slice(16, -3)} added ${++this.added}`, body: body(this.rand, 2) });
        dirty.add(p);
      }
      if (turn % 23 === 0) {
        const p = this.pickFile();
        const sections = this.files.get(p)!;
        if (sections.length > 10) sections.splice(1 + Math.floor(this.rand() * (sections.length - 1)), 1);
        dirty.add(p);
      }
    }
    const writes = new Map<string, string>();
    for (const p of [...dirty].sort()) writes.set(p, STATIC[p] ?? this.render(p));
    return { turn, time: this.timeOf(turn), writes, deletes: [] };
  }
}
