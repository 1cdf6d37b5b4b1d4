import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { canonicalJson, type JsonObject } from '../json';
import type { MemoryRecord } from '../record';
import { parseRfc3339, readSnapshot, writeSnapshot } from './index';
import { AGENT_ID, makeSnapshot } from './testing/fixtures';

const offset = fc.oneof(
  fc.constant('Z'),
  fc.tuple(fc.constantFrom('+', '-'), fc.integer({ min: 0, max: 14 }), fc.constantFrom(0, 30, 45)).map(
    ([sign, h, m]) => `${sign}${String(h).padStart(2, '0')}:${String(m).padStart(2, '0')}`,
  ),
);

/** RFC 3339 text with a random offset and 0–9 fractional digits. */
const timestamp = fc
  .tuple(fc.date({ min: new Date('1900-01-02T00:00:00Z'), max: new Date('2099-12-30T00:00:00Z'), noInvalidDate: true }), offset, fc.integer({ min: 0, max: 9 }))
  .map(([date, zone, digits]) => {
    const base = date.toISOString().slice(0, 19);
    const fraction = digits === 0 ? '' : `.${'7'.repeat(digits)}`;
    return `${base}${fraction}${zone}`;
  });

/** Unknown fields; prefixed so they never shadow a schema field. */
const unknownKeys = fc.dictionary(
  fc.string({ minLength: 1, maxLength: 8 }).map((key) => `x_${key}`),
  fc.jsonValue({ maxDepth: 2 }),
  { maxKeys: 3 },
);

const record = (index: number) =>
  fc.record({ created: timestamp, observed: fc.option(timestamp, { nil: undefined }), extra: unknownKeys, content: fc.string({ minLength: 1 }) }).map(
    ({ created, observed, extra, content }): MemoryRecord => ({
      ...(extra as JsonObject),
      id: `0190a000-0000-7000-8000-${index.toString(16).padStart(12, '0')}`,
      agent_id: AGENT_ID,
      content,
      memory_type: 'episodic',
      source: { runtime: 'openclaw', x_nested: extra },
      temporal: observed === undefined ? { created_at: created } : { created_at: created, observed_at: observed },
      status: 'active',
      namespace: 'daily',
    }),
  );

const records = fc.integer({ min: 0, max: 12 }).chain((n) => fc.tuple(...Array.from({ length: n }, (_, i) => record(i))));

function quarterFile(r: MemoryRecord): string {
  const stamp = r.temporal.observed_at ?? r.temporal.created_at;
  const date = new Date(parseRfc3339(stamp)!);
  return `memory/${date.getUTCFullYear()}-Q${Math.floor(date.getUTCMonth() / 3) + 1}.jsonl`;
}

describe('snapshot round trip (property)', () => {
  it('keeps every record, puts each in its quarter, and writes the same bytes again', async () => {
    await fc.assert(
      fc.asyncProperty(records, async (input) => {
        const bytes = await writeSnapshot(makeSnapshot(input));
        const back = await readSnapshot(bytes);
        const sorted = (list: MemoryRecord[]) => list.map((r) => canonicalJson(r)).sort();
        expect(sorted(back.records)).toEqual(sorted(input));
        const memory = (back.manifest.layers as JsonObject).memory as JsonObject | undefined;
        const partitions = (memory?.partitions ?? []) as JsonObject[];
        const expected = new Map<string, number>();
        for (const r of input) expected.set(quarterFile(r), (expected.get(quarterFile(r)) ?? 0) + 1);
        expect(partitions.map((p) => [p.file, p.record_count])).toEqual([...expected].sort(([a], [b]) => (a < b ? -1 : 1)));
        expect(Buffer.from(await writeSnapshot(back)).equals(Buffer.from(bytes))).toBe(true);
      }),
      { numRuns: 60 },
    );
  });
});
