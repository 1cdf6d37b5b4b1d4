/**
 * A built slot's line (records.ts `FileShared`, what a first sync writes its snapshot and client
 * state with) is exactly `recordJson` of its record, over random files of every handler: headings
 * and contents with quotes, backslashes, control characters, non-ASCII and lone surrogates,
 * importance tags (category, confidence), hashtags, line-2 tags of a tiered file, CRLF, dated names.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { recordJson } from '@/lib/core/record';
import { handlerFor, type Tier } from './handlers';
import { keyedFile } from './records';

const AGENT = '0b7c2a4e-8b3d-4e5f-9a7b-0c1d2e3f4a5b';
const PATHS = [
  'MEMORY.md', 'memory/2026-03-04.md', 'memory/procedures/deploy.md', 'memory/curated/people.md', 'memory/active-context.md',
  'memory/gating-policies.md', 'memory/project-alpha.md', 'memory/notes "q".md', 'memory/semantic/topic-é.md',
  'memory/episodic/2025-12-31.md', 'memory/archive/2024/01/old.md',
];
const PIECES = [
  'fact', 'the user prefers tea', '"quoted"', 'back\\slash', 'tab\there', '\u0001', '\u007f', 'é', '漢字', '😀', '\ud800', '\udfff',
  '#tag', '##', '#x.', '[urgent|i=0.9]', '[note|i=.5]', '[bad|i=1..2]', '|i=', '\u2028', '</script>', ' ', '',
];

const line = fc.array(fc.constantFrom(...PIECES), { maxLength: 6 }).map((words) => words.join(' '));
const block = fc.record({
  heading: fc.option(line, { nil: null }),
  body: fc.array(line, { minLength: 1, maxLength: 4 }),
});
const file = fc.record({
  rel: fc.constantFrom(...PATHS),
  tier: fc.constantFrom<Tier | null>(null, 'warm', 'hot', 'archive'),
  lineTwo: fc.option(fc.array(fc.constantFrom('ops', '#net', 'é', 'a,b'), { maxLength: 3 }).map((tags) => `#tags: ${tags.join(', ')}`), { nil: null }),
  blocks: fc.array(block, { minLength: 1, maxLength: 6 }),
  crlf: fc.boolean(),
  mtime: fc.constantFrom('2026-06-01T00:00:00Z', '2026-06-01T10:11:12.123456789Z'),
});

type File = typeof file extends fc.Arbitrary<infer T> ? T : never;

function text(f: File): string {
  const lines = ['# Title', f.lineTwo ?? 'intro line'];
  for (const b of f.blocks) {
    if (b.heading !== null) lines.push(`## ${b.heading}`);
    lines.push(...b.body, '');
  }
  return lines.join(f.crlf ? '\r\n' : '\n');
}

describe('a built slot says its record line', () => {
  it('json() is recordJson(record) for every record of random files', () => {
    let records = 0;
    fc.assert(
      fc.property(file, (f) => {
        const handler = handlerFor(f.rel)!;
        const slots = keyedFile(AGENT, { relPath: f.rel, text: text(f), mtime: f.mtime, handler, tier: f.tier }).slots(() => false);
        for (const slot of slots) {
          expect(slot.json!()).toBe(recordJson(slot.record!));
          records++;
        }
      }),
      { numRuns: 400, seed: 22 },
    );
    // The runs held records with and without a category and a confidence.
    expect(records).toBeGreaterThan(400);
  });

  it('the optional fields come out where recordJson puts them', () => {
    const body = '## Ops [deploy|i=0.8]\nrun #checks first\n[later|i=0.3] too\n';
    const [slot] = keyedFile(AGENT, { relPath: 'memory/semantic/ops.md', text: `# T\n#tags: a, b\n\n${body}`, mtime: '2026-06-01T00:00:00Z', handler: handlerFor('memory/semantic/ops.md')!, tier: 'warm' }).slots(() => false);
    expect(slot!.record).toMatchObject({ category: 'deploy', confidence: 0.8 });
    expect(slot!.json!()).toBe(recordJson(slot!.record!));
  });
});
