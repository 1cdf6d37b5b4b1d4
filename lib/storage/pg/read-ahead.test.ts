import { describe, expect, it } from 'vitest';
import { readAhead } from './read-ahead';

/** A reader whose reads finish only when the test says so, recording what is in flight. */
function controlledReader(fail: ReadonlySet<string> = new Set()) {
  const started: string[] = [];
  const finish = new Map<string, () => void>();
  let inFlight = 0;
  let maxInFlight = 0;
  const read = (key: string) => new Promise<string>((resolve, reject) => {
    started.push(key);
    inFlight++;
    maxInFlight = Math.max(maxInFlight, inFlight);
    finish.set(key, () => {
      inFlight--;
      if (fail.has(key)) reject(new Error(`cannot read ${key}`));
      else resolve(`bytes of ${key}`);
    });
  });
  return { read, started, finishAll: () => { for (const f of finish.values()) f(); finish.clear(); }, max: () => maxInFlight };
}

describe('readAhead', () => {
  it('hands the reads back in key order with at most `window` requested ahead of the consumer', async () => {
    const keys = Array.from({ length: 10 }, (_, i) => `k${i}`);
    const reader = controlledReader();
    const blobs = readAhead(keys, reader.read, 3);
    const got: string[] = [];
    for (let i = 0; i < keys.length; i++) {
      const next = blobs.next();
      // taken i + 1, so at most i + 1 + 3 requested
      expect(reader.started.length).toBeLessThanOrEqual(Math.min(keys.length, i + 1 + 3));
      reader.finishAll();
      got.push(await next);
    }
    expect(got).toEqual(keys.map((k) => `bytes of ${k}`));
    expect(reader.started).toEqual(keys);
    expect(reader.max()).toBeLessThanOrEqual(4);
    expect(() => blobs.next()).toThrow(/every key was read/);
  });

  it('a failed read fails the turn of its key, not earlier ones, and leaves no unhandled rejection', async () => {
    const reader = controlledReader(new Set(['k2']));
    const blobs = readAhead(['k0', 'k1', 'k2', 'k3'], reader.read, 4);
    const first = blobs.next();
    reader.finishAll(); // k0…k3 all finish now, k2 rejected
    await new Promise((resolve) => setTimeout(resolve, 20)); // a rejection nobody handles would be reported by now
    expect(await first).toBe('bytes of k0');
    expect(await blobs.next()).toBe('bytes of k1');
    await expect(blobs.next()).rejects.toThrow('cannot read k2');
    expect(await blobs.next()).toBe('bytes of k3');
  });
});
