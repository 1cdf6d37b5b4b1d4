import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { handlerFor, tierFor } from './handlers';
import { keyedFile, type MarkdownFile } from './records';
import { arrayKeys } from './section-keys';

const AGENT = '5c0e3f1a-7b2d-4c8e-9f6a-2b3c4d5e6f70';

function file(text: string, rel = 'memory/semantic/infra.md', v41 = false): MarkdownFile {
  return { relPath: rel, text, mtime: '2026-01-01T00:00:00Z', handler: handlerFor(rel)!, tier: tierFor(rel, v41) };
}

/** The keys of `after` keyed with `before`'s keying given, checked against keying it from scratch. */
function rekeyed(before: string, after: string, opts: { rel?: string; v41?: boolean; keys?: (keys: readonly string[]) => string[] } = {}) {
  const prev = keyedFile(AGENT, file(before, opts.rel, opts.v41));
  const fresh = keyedFile(AGENT, file(after, opts.rel, opts.v41));
  const keys = opts.keys ? opts.keys(prev.keys) : prev.keys;
  const reused = keyedFile(AGENT, file(after, opts.rel, opts.v41), undefined, { text: before, keys: arrayKeys(keys) });
  expect(reused.keys).toEqual(fresh.keys);
  return { hashed: reused.hashed, sections: fresh.keys.length };
}

const doc = (sections: string[], eol = '\n', final = true) => {
  const text = ['# infra', '#tags: memory', '', ...sections.flatMap((s) => [s, ''])].join(eol);
  return final ? text : text.replace(/(\r?\n)+$/, '');
};
const many = (n: number, edit?: (i: number) => string | undefined) => Array.from({ length: n }, (_, i) => edit?.(i) ?? `## fact ${i}\nbody ${i}`);

describe('a changed file keyed with its previous keying (section-keys.ts)', () => {
  it('hashes only the sections that changed (and the one key taken over that it checks)', () => {
    expect(rekeyed(doc(many(50)), doc(many(50, (i) => (i === 17 ? '## fact 17\nedited' : undefined))))).toEqual({ hashed: 2, sections: 50 });
    // The first and the last section, CRLF, no final newline.
    expect(rekeyed(doc(many(50)), doc(many(50, (i) => (i === 0 || i === 49 ? `## fact ${i}\nedited` : undefined))))).toEqual({ hashed: 3, sections: 50 });
    expect(rekeyed(doc(many(20), '\r\n'), doc(many(20, (i) => (i === 5 ? '## fact 5\nedited' : undefined)), '\r\n'))).toEqual({ hashed: 2, sections: 20 });
    expect(rekeyed(doc(many(20), '\n', false), doc(many(20, (i) => (i === 19 ? '## fact 19\nedited' : undefined)), '\n', false))).toEqual({ hashed: 2, sections: 20 });
  });

  it('hashes again every section whose lines moved (a line more above it)', () => {
    expect(rekeyed(doc(many(20)), doc(many(20, (i) => (i === 9 ? '## fact 9\nbody 9\nmore' : undefined))))).toEqual({ hashed: 1 + 1 + 10, sections: 20 });
  });

  it('hashes again a section whose occurrence changed: an edit makes an earlier section its duplicate, or ends one', () => {
    const dup = '## same\nbody';
    // Section 3 becomes a copy of the unchanged section 8: section 8 is now the second occurrence.
    const made = rekeyed(doc(many(10, (i) => (i === 8 ? dup : undefined))), doc(many(10, (i) => (i === 3 || i === 8 ? dup : undefined))));
    expect(made).toEqual({ hashed: 3, sections: 10 });
    // The earlier copy edited away: the unchanged later one is the first occurrence again.
    expect(rekeyed(doc(many(10, (i) => (i === 3 || i === 8 ? dup : undefined))), doc(many(10, (i) => (i === 8 ? dup : undefined))))).toEqual({ hashed: 3, sections: 10 });
    // Swapped sections, a heading in a fence opened by an edit.
    rekeyed(doc(many(10)), doc(many(10, (i) => (i === 2 ? '## fact 3\nbody 3' : i === 3 ? '## fact 2\nbody 2' : undefined))));
    rekeyed(doc(many(10)), doc(many(10, (i) => (i === 2 ? '## fact 2\n```' : undefined))));
  });

  it('keys every section when the file key changed (line-2 tags of a tiered file) or the previous keys are not its keying', () => {
    const rel = 'memory/semantic/infra.md';
    const tagged = (tags: string) => doc(many(10)).replace('#tags: memory', `#tags: ${tags}`);
    expect(rekeyed(tagged('memory'), tagged('ops, memory'), { rel, v41: true })).toEqual({ hashed: 10, sections: 10 });
    // Keys that are not the keying of those bytes: the check of the first key taken over refuses them all.
    expect(rekeyed(doc(many(10)), doc(many(10, (i) => (i === 4 ? '## fact 4\nedited' : undefined))), { keys: (keys) => keys.map((k) => k.replace(/^./, 'f')) })).toEqual({ hashed: 10, sections: 10 });
    expect(rekeyed(doc(many(10)), doc(many(10)), { keys: (keys) => keys.slice(1) })).toEqual({ hashed: 10, sections: 10 });
  });

  it('gives the keys of keying from scratch, whatever the two versions', () => {
    // A version, and the next one a few line edits away (so most sections are the same).
    const line = fc.oneof(
      { arbitrary: fc.nat(6).map((n) => `## h${n}`), weight: 3 },
      { arbitrary: fc.nat(6).map((n) => `b${n}`), weight: 4 },
      { arbitrary: fc.constantFrom('alpha', 'alpha ', '## h', '## h ', '```', '', ' ', '# t', '#tags: a', 'beta\r'), weight: 1 },
    );
    // Mostly lines replaced in place (later sections keep their line numbers), some inserted or removed.
    const splice = fc.oneof(
      { arbitrary: fc.record({ at: fc.nat(60), insert: fc.array(line, { minLength: 1, maxLength: 2 }) }).map((e) => ({ ...e, remove: e.insert.length })), weight: 3 },
      { arbitrary: fc.record({ at: fc.nat(60), remove: fc.nat(2), insert: fc.array(line, { maxLength: 2 }) }), weight: 1 },
    );
    const versions = fc.record({ lines: fc.array(line, { minLength: 20, maxLength: 60 }), edits: fc.array(splice, { minLength: 1, maxLength: 3 }), eol: fc.constantFrom('\n', '\r\n'), v41: fc.boolean() });
    let reused = 0;
    fc.assert(fc.property(versions, ({ lines, edits, eol, v41 }) => {
      const after = [...lines];
      for (const e of edits) after.splice(e.at % (after.length + 1), e.remove, ...e.insert);
      const { hashed, sections } = rekeyed(lines.join(eol), after.join(eol), { v41 });
      reused += sections - hashed;
    }), { numRuns: 3000, seed: 20261204 });
    expect(reused, 'keys were taken over').toBeGreaterThan(5000);
  });
});
