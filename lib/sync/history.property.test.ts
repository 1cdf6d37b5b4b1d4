import fs from 'node:fs/promises';
import path from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { localTarget } from './local-target';
import { restoreAgent } from './restore';
import { syncWorkspace } from './sync';
import { makeSandbox, readTree, steppingClock } from './testing/workspace';

/**
 * Random edit histories of an OpenClaw workspace: every sequence restores byte-exact, and a sync
 * with nothing changed uploads nothing.
 */
const MD_FILES = ['MEMORY.md', 'memory/2026-11-02.md', 'memory/semantic/infrastructure.md', 'memory/notes.md'] as const;
const BIN_FILES = ['memory/facts.db', 'memory/attachments/photo.bin'] as const;

type Section = { heading: string; body: string };
interface Model {
  md: Map<string, Section[]>;
  bin: Map<string, Uint8Array>;
}

const word = fc.constantFrom('alpha', 'bravo', 'host 10.0.4.17', 'évt-00012-a1b2c3', 'deploy', 'Redis', 'queue', '```', '## not a heading', 'ünïcödé');
const text = fc.array(word, { minLength: 1, maxLength: 5 }).map((w) => w.join(' '));
const file = fc.constantFrom(...MD_FILES);
const idx = fc.nat(20);

const op = fc.oneof(
  fc.record({ kind: fc.constant('insert' as const), file, at: idx, heading: text, body: text }),
  fc.record({ kind: fc.constant('edit' as const), file, at: idx, body: text }),
  fc.record({ kind: fc.constant('rerank' as const), file, seed: fc.nat() }),
  fc.record({ kind: fc.constant('rename' as const), file, at: idx, heading: text }),
  fc.record({ kind: fc.constant('delete' as const), file, at: idx }),
  fc.record({ kind: fc.constant('duplicate' as const), file, at: idx }),
  fc.record({ kind: fc.constant('move' as const), file, to: file, at: idx }),
  fc.record({ kind: fc.constant('binary' as const), path: fc.constantFrom(...BIN_FILES), bytes: fc.uint8Array({ minLength: 0, maxLength: 64 }) }),
  fc.record({ kind: fc.constant('unlink' as const), path: fc.constantFrom(...BIN_FILES) }),
  fc.record({ kind: fc.constant('idle' as const) }),
);
type Op = typeof op extends fc.Arbitrary<infer T> ? T : never;

function apply(model: Model, o: Op): void {
  if (o.kind === 'binary') return void model.bin.set(o.path, o.bytes);
  if (o.kind === 'unlink') return void model.bin.delete(o.path);
  if (o.kind === 'idle') return;
  const list = model.md.get(o.file) ?? [];
  model.md.set(o.file, list);
  const i = list.length && 'at' in o ? o.at % list.length : 0;
  switch (o.kind) {
    case 'insert':
      list.splice(Math.min(o.at, list.length), 0, { heading: o.heading, body: o.body });
      break;
    case 'edit':
      if (list[i]) list[i] = { ...list[i], body: o.body };
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

function render(model: Model): Map<string, Buffer> {
  const files = new Map<string, Buffer>();
  for (const [name, sections] of model.md) {
    if (!sections.length) continue;
    const body = sections.map((s) => `## ${s.heading}\n${s.body}\n`).join('\n');
    files.set(name, Buffer.from(`# ${path.basename(name, '.md')}\n#tags: memory\n\n${body}`));
  }
  for (const [name, bytes] of model.bin) files.set(name, Buffer.from(bytes));
  return new Map([...files].sort(([a], [b]) => (a < b ? -1 : 1)));
}

async function materialize(workspace: string, files: Map<string, Buffer>): Promise<void> {
  for (const rel of (await readTree(workspace)).keys()) if (!files.has(rel)) await fs.rm(path.join(workspace, rel));
  for (const [rel, bytes] of files) {
    await fs.mkdir(path.dirname(path.join(workspace, rel)), { recursive: true });
    await fs.writeFile(path.join(workspace, rel), bytes);
  }
}

const sameTree = (a: Map<string, Buffer>, b: Map<string, Buffer>) =>
  a.size === b.size && [...a].every(([k, v]) => b.get(k)?.equals(v) === true);

describe('random edit histories', () => {
  it('restore every sequence byte-exact; idle syncs upload nothing', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(op, { minLength: 1, maxLength: 14 }), async (ops) => {
        const sb = await makeSandbox('lineage-prop-');
        try {
          const clock = steppingClock();
          const target = localTarget(sb.dataDir, clock);
          const model: Model = { md: new Map([['MEMORY.md', [{ heading: 'Seed', body: 'first fact' }]]]), bin: new Map() };
          const states: Map<string, Buffer>[] = [];
          let lastSynced: Map<string, Buffer> | null = null;
          let agentId = '';
          for (const o of [{ kind: 'idle' as const }, ...ops]) {
            apply(model, o);
            const files = render(model);
            await materialize(sb.workspace, files);
            const out = await syncWorkspace({ runtime: 'openclaw', workspace: sb.workspace, target, alfHome: sb.alfHome, clock });
            agentId = out.agent.alf_agent_id;
            if (lastSynced && sameTree(lastSynced, files)) {
              expect(out.no_changes).toBe(true);
              expect(out.sequence).toBe(states.length - 1);
            } else {
              expect(out.no_changes).toBe(false);
              expect(out.sequence).toBe(states.length);
              states.push(files);
              lastSynced = files;
            }
          }
          for (let seq = 0; seq < states.length; seq++) {
            const out = path.join(sb.root, `restore-${seq}`);
            await restoreAgent({ runtime: 'openclaw', target, agentId, atSequence: seq, out, replace: false, alfHome: sb.alfHome, clock });
            expect(sameTree(await readTree(out), states[seq]!)).toBe(true);
          }
        } finally {
          await sb.cleanup();
        }
      }),
      { numRuns: 40, seed: 20261130, endOnFailure: true },
    );
  }, 240_000);
});
