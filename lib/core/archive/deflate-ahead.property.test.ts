import fc from 'fast-check';
import { deflateSync } from 'fflate';
import { describe, expect, it } from 'vitest';
import { deflateAhead, deflatedAhead, SMALL_BYTES, SMALL_LEVEL } from './deflate-ahead';
import { writeZip, type ZipEntry } from './zip-write';

/** Bytes as a workspace has them: random, or text with repeats (what Deflate finds matches in), up to past the small-member limit. */
const memberBytes = fc.oneof(
  fc.uint8Array({ minLength: 0, maxLength: 3000 }),
  fc.tuple(fc.array(fc.string({ maxLength: 40 }), { minLength: 1, maxLength: 12 }), fc.integer({ min: 1, max: 700 }), fc.integer({ min: 0, max: 2 ** 31 }))
    .map(([words, count, seed]) => {
      let text = '';
      let x = seed;
      for (let i = 0; i < count; i++) {
        x = (x * 1103515245 + 12345) % 2 ** 31;
        text += `${words[x % words.length]}${x % 7 === 0 ? '\n' : ' '}`;
      }
      return new Uint8Array(Buffer.from(text, 'utf8'));
    }),
);

const copy = (data: Uint8Array) => new Uint8Array(data);

describe('deflate ahead (worker) is byte-identical to fflate on the main thread', () => {
  it('gives exactly deflateSync’s bytes, at every level, for every small member (and starts nothing for others)', async () => {
    let used = 0;
    await fc.assert(
      fc.asyncProperty(memberBytes, fc.integer({ min: 0, max: 9 }), async (data, level) => {
        deflateAhead(data, level);
        const ahead = await deflatedAhead(data, level);
        if (data.byteLength === 0 || data.byteLength >= SMALL_BYTES) {
          expect(deflatedAhead(data, level)).toBeNull();
          return;
        }
        // Not null: the worker did deflate it (a property that held with no worker would prove nothing).
        expect(ahead).not.toBeNull();
        expect(Buffer.from(ahead!).equals(Buffer.from(deflateSync(data, { level: level as 6 })))).toBe(true);
        used++;
      }),
      { numRuns: 150 },
    );
    expect(used).toBeGreaterThan(50);
  });

  it('writeZip with members deflated ahead writes the same bytes as without', async () => {
    await fc.assert(
      fc.asyncProperty(fc.uniqueArray(fc.tuple(fc.stringMatching(/^[a-z]{1,8}$/), memberBytes, fc.boolean()), { selector: ([name]) => name, maxLength: 8 }), async (members) => {
        const straight: ZipEntry[] = members.map(([name, data]) => ({ name: `raw/openclaw/${name}.md`, data: copy(data) }));
        const withAhead: ZipEntry[] = members.map(([name, data, early]) => {
          const bytes = copy(data);
          if (early) deflateAhead(bytes);
          return { name: `raw/openclaw/${name}.md`, data: bytes };
        });
        const [a, b] = await Promise.all([writeZip(withAhead), writeZip(straight)]);
        expect(Buffer.from(a).equals(Buffer.from(b))).toBe(true);
      }),
      { numRuns: 60 },
    );
  });

  it('a buffer changed after its Deflate started is deflated again from what it holds', async () => {
    const data = new Uint8Array(Buffer.from('# notes\n\n'.repeat(200)));
    deflateAhead(data, SMALL_LEVEL);
    data[3] = 0x21; // after the worker was given its copy
    expect(await deflatedAhead(data, SMALL_LEVEL)).toBeNull();
    const zipped = await writeZip([{ name: 'raw/openclaw/a.md', data }]);
    const straight = await writeZip([{ name: 'raw/openclaw/a.md', data: copy(data) }]);
    expect(Buffer.from(zipped).equals(Buffer.from(straight))).toBe(true);
  });
});
