/**
 * Random edit histories of an OpenClaw workspace for property tests: a model of markdown files
 * (sections) and binary files, random edits of it (insert, edit in place, re-rank, rename a heading,
 * delete, duplicate, move between files, binary writes and removals, idle), and its rendering.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import fc from 'fast-check';
import { readTree } from './workspace';

export const MD_FILES = ['MEMORY.md', 'memory/2026-11-02.md', 'memory/semantic/infrastructure.md', 'memory/notes.md'] as const;
export const BIN_FILES = ['memory/facts.db', 'memory/attachments/photo.bin'] as const;

type Section = { heading: string; body: string };
export interface Model {
  md: Map<string, Section[]>;
  bin: Map<string, Uint8Array>;
  /** A file's `#tags:` line (line 2) when not the default `memory`. */
  tags?: Map<string, string>;
  /** Files written with CRLF line ends; files without a final newline. */
  crlf?: Set<string>;
  bare?: Set<string>;
}

const word = fc.constantFrom('alpha', 'bravo', 'host 10.0.4.17', 'évt-00012-a1b2c3', 'deploy', 'Redis', 'queue', '```', '## not a heading', 'ünïcödé');
const text = fc.array(word, { minLength: 1, maxLength: 5 }).map((w) => w.join(' '));
const file = fc.constantFrom(...MD_FILES);
const idx = fc.nat(20);

/** One random edit of the workspace model. */
export const op = fc.oneof(
  fc.record({ kind: fc.constant('insert' as const), file, at: idx, heading: text, body: text }),
  fc.record({ kind: fc.constant('edit' as const), file, at: idx, body: text }),
  fc.record({ kind: fc.constant('rerank' as const), file, seed: fc.nat() }),
  fc.record({ kind: fc.constant('rename' as const), file, at: idx, heading: text }),
  fc.record({ kind: fc.constant('delete' as const), file, at: idx }),
  fc.record({ kind: fc.constant('duplicate' as const), file, at: idx }),
  fc.record({ kind: fc.constant('move' as const), file, to: file, at: idx }),
  fc.record({ kind: fc.constant('binary' as const), path: fc.constantFrom(...BIN_FILES), bytes: fc.uint8Array({ minLength: 0, maxLength: 64 }) }),
  fc.record({ kind: fc.constant('unlink' as const), path: fc.constantFrom(...BIN_FILES) }),
  fc.record({ kind: fc.constant('retag' as const), file, tags: fc.constantFrom('memory', 'memory, infra', 'ops #deploy, memory') }),
  fc.record({ kind: fc.constant('idle' as const) }),
);
/**
 * The edits above, and the ones that stress keeping a changed file's unchanged sections (their
 * keys, lines and occurrences): a body of several lines (the lines after it move), two sections
 * swapped, a section copied next to another, CRLF line ends or no final newline switched on or off.
 */
export const stressOp = fc.oneof(
  { arbitrary: op, weight: 6 },
  { arbitrary: fc.record({ kind: fc.constant('lines' as const), file, at: idx, body: fc.array(text, { minLength: 2, maxLength: 3 }).map((l) => l.join('\n')) }), weight: 2 },
  { arbitrary: fc.record({ kind: fc.constant('swap' as const), file, at: idx }), weight: 1 },
  { arbitrary: fc.record({ kind: fc.constant('copy' as const), file, at: idx, to: idx }), weight: 1 },
  { arbitrary: fc.record({ kind: fc.constantFrom('crlf' as const, 'bare' as const), file }), weight: 1 },
);
export type Op = typeof stressOp extends fc.Arbitrary<infer T> ? T : never;

/** Applies an edit to the model. */
export function apply(model: Model, o: Op): void {
  if (o.kind === 'crlf' || o.kind === 'bare') {
    const set = (model[o.kind] ??= new Set());
    return void (set.has(o.file) ? set.delete(o.file) : set.add(o.file));
  }
  if (o.kind === 'binary') return void model.bin.set(o.path, o.bytes);
  if (o.kind === 'unlink') return void model.bin.delete(o.path);
  if (o.kind === 'idle') return;
  if (o.kind === 'retag') return void (model.tags ??= new Map()).set(o.file, o.tags);
  const list = model.md.get(o.file) ?? [];
  model.md.set(o.file, list);
  const i = list.length && 'at' in o ? o.at % list.length : 0;
  switch (o.kind) {
    case 'insert':
      list.splice(Math.min(o.at, list.length), 0, { heading: o.heading, body: o.body });
      break;
    case 'edit':
    case 'lines':
      if (list[i]) list[i] = { ...list[i], body: o.body };
      break;
    case 'swap':
      if (list.length > 1) [list[i], list[(i + 1) % list.length]] = [list[(i + 1) % list.length]!, list[i]!];
      break;
    case 'copy':
      if (list[i]) list.splice(o.to % (list.length + 1), 0, { ...list[i] });
      break;
    case 'rename':
      if (list[i]) list[i] = { ...list[i], heading: o.heading };
      break;
    case 'delete':
      list.splice(i, 1);
      break;
    case 'duplicate':
      if (list[i]) list.splice(i, 0, { ...list[i] });
      break;
    case 'rerank':
      list.sort((a, b) => hash(a.heading + a.body, o.seed) - hash(b.heading + b.body, o.seed));
      break;
    case 'move': {
      const [moved] = list.splice(i, 1);
      if (moved) model.md.set(o.to, [...(model.md.get(o.to) ?? []), moved]);
      break;
    }
  }
}

function hash(s: string, seed: number): number {
  let h = seed | 0;
  for (let k = 0; k < s.length; k++) h = Math.imul(h ^ s.charCodeAt(k), 16777619);
  return h;
}

/** The workspace files of the model (markdown with a `#tags:` line, binary files), sorted. */
export function render(model: Model): Map<string, Buffer> {
  const files = new Map<string, Buffer>();
  for (const [name, sections] of model.md) {
    if (!sections.length) continue;
    const body = sections.map((s) => `## ${s.heading}\n${s.body}\n`).join('\n');
    let rendered = `# ${path.basename(name, '.md')}\n#tags: ${model.tags?.get(name) ?? 'memory'}\n\n${body}`;
    if (model.bare?.has(name)) rendered = rendered.replace(/\n+$/, '');
    if (model.crlf?.has(name)) rendered = rendered.replaceAll('\n', '\r\n');
    files.set(name, Buffer.from(rendered));
  }
  for (const [name, bytes] of model.bin) files.set(name, Buffer.from(bytes));
  return new Map([...files].sort(([a], [b]) => (a < b ? -1 : 1)));
}

/** Makes the workspace hold exactly these files (control files aside). */
export async function materialize(workspace: string, files: Map<string, Buffer>): Promise<void> {
  for (const rel of (await readTree(workspace)).keys()) if (!files.has(rel)) await fs.rm(path.join(workspace, rel));
  for (const [rel, bytes] of files) {
    const file = path.join(workspace, rel);
    // Unchanged files are left alone, as an editor leaves them: their stat data stay the same.
    if ((await fs.readFile(file).catch(() => null))?.equals(bytes)) continue;
    await fs.mkdir(path.dirname(file), { recursive: true });
    await fs.writeFile(file, bytes);
  }
}

/** The model a history starts from. */
export function seedModel(): Model {
  return { md: new Map([['MEMORY.md', [{ heading: 'Seed', body: 'first fact' }]]]), bin: new Map() };
}

export const sameTree = (a: Map<string, Buffer>, b: Map<string, Buffer>) =>
  a.size === b.size && [...a].every(([k, v]) => b.get(k)?.equals(v) === true);
