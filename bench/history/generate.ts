/**
 * A deterministic OpenClaw Memory v4.1-style workspace evolving over N turns (one sync per turn):
 * a daily episodic log appended every turn, semantic files (`#tags:` on line 2) edited in place,
 * MEMORY.md re-ranked, lessons added, daily logs archived into `memory/archive/YYYY/MM/` once they
 * are 30 days old, and planted facts (`evt-00012-a1b2c3` tokens plus an IP) at known turns.
 * Every turn changes at least one file, so turn t is ledger sequence t.
 */
import { TOPICS, body, hex6, pick, prng, sentence } from './text';

export const TURN_MS = 3 * 3600_000;
export const TURNS_PER_DAY = 8;
export const ARCHIVE_AFTER_DAYS = 30;
export const START = Date.parse('2026-01-01T00:00:00Z');

interface Section { heading: string; body: string }
type FactKind = 'episodic' | 'semantic' | 'deleted' | 'promoted';

/** A planted fact and where it first appeared (sequence = turn). */
export interface PlantedFact { fact: string; ip: string; turn: number; file: string; kind: FactKind }

/** What one turn wrote: whole files (text) and deleted paths. */
export interface TurnChange { turn: number; time: Date; writes: Map<string, string>; deletes: string[] }

const STATIC_FILES: Record<string, string> = {
  'SOUL.md': '# Soul\n\nCalm, precise, writes things down.\n',
  'IDENTITY.md': '# Identity\n\nName: Atlas\nRole: operations agent\n',
  'AGENTS.md': '# Agents\n\nWorks with the infra team.\n',
  'USER.md': '# User\n\nPrefers short answers.\n',
  'TOOLS.md': '# Tools\n\nssh, kubectl, psql\n',
};

const dateOf = (turn: number) => new Date(START + turn * TURN_MS).toISOString().slice(0, 10);
const episodicPath = (date: string) => `memory/episodic/${date}.md`;
const archivePath = (date: string) => `memory/archive/${date.slice(0, 4)}/${date.slice(5, 7)}/${date}.md`;

function render(title: string, tags: string | null, sections: readonly Section[]): string {
  const head = tags === null ? `# ${title}\n\n` : `# ${title}\n#tags: ${tags}\n\n`;
  return head + sections.map((s) => `## ${s.heading}\n${s.body}\n`).join('\n');
}

/** Turns at which facts are planted: evenly spread, one kind after another. */
function factPlan(turns: number, count: number): Map<number, FactKind> {
  const kinds: FactKind[] = ['episodic', 'semantic', 'deleted', 'promoted'];
  const plan = new Map<number, FactKind>();
  for (let i = 0; i < count; i++) plan.set(Math.max(1, Math.floor(((i + 0.5) * (turns - 40)) / count)), kinds[i % kinds.length]!);
  return plan;
}

export class WorkspaceHistory {
  readonly facts: PlantedFact[] = [];
  readonly files = new Map<string, string>();
  private readonly rand: () => number;
  private readonly semantic = new Map<string, Section[]>();
  private readonly episodic = new Map<string, Section[]>();
  private memory: Section[] = [];
  private lessons: Section[] = [];
  private readonly plan: Map<number, FactKind>;
  private readonly pendingDeletes = new Map<number, { file: string; heading: string }>();
  private readonly pendingPromotions = new Map<number, Section>();
  private counter = 0;
  private turn = -1;
  private dirty = new Set<string>();
  private deleted = new Set<string>();

  constructor(readonly turns: number, seed = 42, factCount = 16) {
    this.rand = prng(seed);
    this.plan = factPlan(turns, factCount);
  }

  timeOf(turn: number): Date {
    return new Date(START + turn * TURN_MS);
  }

  /** The next turn's change set (turn 0 writes the whole initial workspace). */
  next(): TurnChange {
    this.turn++;
    if (this.turn === 0) this.seed();
    else this.evolve(this.turn);
    const writes = new Map<string, string>();
    for (const path of [...this.dirty].sort()) {
      const text = this.renderFile(path);
      if (this.files.get(path) !== text) writes.set(path, text);
      this.files.set(path, text);
    }
    const deletes = [...this.deleted].sort();
    for (const path of deletes) this.files.delete(path);
    this.dirty = new Set();
    this.deleted = new Set();
    return { turn: this.turn, time: this.timeOf(this.turn), writes, deletes };
  }

  private seed(): void {
    for (const path of Object.keys(STATIC_FILES)) this.dirty.add(path);
    for (const topic of TOPICS) {
      const sections = Array.from({ length: 6 }, () => this.newSection(`${topic} note`));
      this.setSemantic(`memory/semantic/${topic}.md`, sections);
    }
    this.memory = Array.from({ length: 10 }, () => this.newSection('Priority'));
    this.lessons = [this.newSection('Lesson')];
    this.dirty.add('MEMORY.md').add('memory/procedural/lessons-learned.md');
    this.appendEpisode(0);
  }

  private evolve(turn: number): void {
    if (turn % TURNS_PER_DAY === 0) this.archiveOld(turn);
    this.appendEpisode(turn);
    const r = () => this.rand();
    if (r() < 0.35) this.editSemantic();
    if (r() < 0.1) this.addSemantic();
    if (r() < 0.03) this.deleteSemantic();
    if (r() < 0.1) this.rerankMemory();
    if (r() < 0.05) this.addLesson();
    const kind = this.plan.get(turn);
    if (kind) this.plantFact(turn, kind);
    const del = this.pendingDeletes.get(turn);
    if (del) this.removeSection(del.file, del.heading);
    const promo = this.pendingPromotions.get(turn);
    if (promo) {
      this.memory = [promo, ...this.memory.slice(0, 11)];
      this.dirty.add('MEMORY.md');
    }
  }

  private newSection(prefix: string): Section {
    this.counter++;
    return { heading: `${prefix} ${this.counter}`, body: body(this.rand) };
  }

  private renderFile(path: string): string {
    if (path in STATIC_FILES) return STATIC_FILES[path]!;
    if (path === 'MEMORY.md') return render('MEMORY', null, this.memory);
    if (path === 'memory/procedural/lessons-learned.md') return render('Lessons learned', 'postmortem, errors', this.lessons);
    const sem = this.semantic.get(path);
    if (sem) return render(path.slice(16, -3), `${path.slice(16, -3)}, memory`, sem);
    const date = /(\d{4}-\d{2}-\d{2})\.md$/.exec(path)?.[1];
    const log = date ? this.episodic.get(date) : undefined;
    if (!date || !log) throw new Error(`generator: no content for ${path}`);
    return render(date, 'daily, log', log);
  }

  private setSemantic(path: string, sections: Section[]): void {
    this.semantic.set(path, sections);
    this.dirty.add(path);
  }

  private appendEpisode(turn: number, section?: Section): void {
    const date = dateOf(turn);
    const hhmm = new Date(START + turn * TURN_MS).toISOString().slice(11, 16);
    const log = this.episodic.get(date) ?? [];
    log.push(section ?? { heading: `${hhmm} ${pick(this.rand, TOPICS)}`, body: body(this.rand) });
    this.episodic.set(date, log);
    this.dirty.add(episodicPath(date));
  }

  /** Daily logs older than 30 days move under memory/archive/YYYY/MM/ (same bytes). */
  private archiveOld(turn: number): void {
    const cutoff = dateOf(turn - ARCHIVE_AFTER_DAYS * TURNS_PER_DAY);
    for (const date of [...this.episodic.keys()]) {
      if (date >= cutoff || !this.files.has(episodicPath(date))) continue;
      this.deleted.add(episodicPath(date));
      this.dirty.add(archivePath(date));
    }
  }

  private semanticFile(): string {
    return pick(this.rand, [...this.semantic.keys()]);
  }

  private editSemantic(): void {
    const file = this.semanticFile();
    const sections = this.semantic.get(file)!;
    const i = Math.floor(this.rand() * sections.length);
    const s = sections[i]!;
    const lines = s.body.split('\n');
    const j = Math.floor(this.rand() * lines.length);
    lines[j] = j === 0 ? sentence(this.rand) : `- ${sentence(this.rand)}`;
    sections[i] = { heading: s.heading, body: lines.join('\n') };
    this.dirty.add(file);
  }

  private addSemantic(section?: Section, file = this.semanticFile()): void {
    this.semantic.get(file)!.push(section ?? this.newSection(`${file.slice(16, -3)} note`));
    this.dirty.add(file);
  }

  private deleteSemantic(): void {
    const file = this.semanticFile();
    const sections = this.semantic.get(file)!;
    if (sections.length <= 3) return;
    sections.splice(Math.floor(this.rand() * sections.length), 1);
    this.dirty.add(file);
  }

  private removeSection(file: string, heading: string): void {
    const sections = this.semantic.get(file)!;
    this.semantic.set(file, sections.filter((s) => s.heading !== heading));
    this.dirty.add(file);
  }

  private rerankMemory(): void {
    const i = Math.floor(this.rand() * this.memory.length);
    const [moved] = this.memory.splice(i, 1);
    this.memory.unshift(moved!);
    this.dirty.add('MEMORY.md');
  }

  private addLesson(): void {
    this.lessons.push(this.newSection('Lesson'));
    this.dirty.add('memory/procedural/lessons-learned.md');
  }

  private plantFact(turn: number, kind: FactKind): void {
    const fact = `evt-${String(turn).padStart(5, '0')}-${hex6(this.rand)}`;
    const ip = `10.${1 + (turn % 250)}.${Math.floor(this.rand() * 250)}.${Math.floor(this.rand() * 250)}`;
    const section: Section = { heading: `Incident ${fact}`, body: `Incident ${fact} traced to host ${ip}.\n- ${sentence(this.rand)}` };
    let file: string;
    if (kind === 'episodic' || kind === 'promoted') {
      this.appendEpisode(turn, section);
      file = episodicPath(dateOf(turn));
      if (kind === 'promoted') this.pendingPromotions.set(turn + 17, { heading: `Promoted ${fact}`, body: section.body });
    } else {
      file = this.semanticFile();
      this.addSemantic(section, file);
      if (kind === 'deleted') this.pendingDeletes.set(turn + 23, { file, heading: section.heading });
    }
    this.facts.push({ fact, ip, turn, file, kind });
  }
}
