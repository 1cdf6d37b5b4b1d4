import { describe, expect, it } from 'vitest';
import { encodeFileKeys, parseFileKeys } from './file-keys';

const digest = (c: string) => c.repeat(64);
const key = (c: string, i: number) => `${c.repeat(31)}${i % 10}`;

describe('file keys file', () => {
  it('reads back what it wrote, files in order, keys in order', () => {
    const keys = new Map<string, string[]>([[digest('a'), [key('k', 0), key('k', 1)]], [digest('b'), []], [digest('c'), [key('z', 7)]]]);
    const bytes = encodeFileKeys(keys);
    expect(bytes.toString('latin1', 0, bytes.indexOf(0x0a))).toBe('lineage-file-keys 1 3');
    expect(parseFileKeys(bytes)).toEqual(keys);
  });

  it('leaves out what does not have the fixed widths', () => {
    const keys = new Map<string, string[]>([[digest('a'), [key('k', 0)]], ['not-a-digest', [key('k', 1)]], [digest('b'), ['short']], [digest('d'), ['é'.repeat(32)]]]);
    expect(parseFileKeys(encodeFileKeys(keys))).toEqual(new Map([[digest('a'), [key('k', 0)]]]));
  });

  it('ignores a file that is torn, padded, repeated or not its own', () => {
    const good = encodeFileKeys(new Map([[digest('a'), [key('k', 0), key('k', 1)]], [digest('b'), [key('k', 2)]]]));
    expect(parseFileKeys(good).size).toBe(2);
    expect(parseFileKeys(good.subarray(0, good.length - 1)).size).toBe(0);
    expect(parseFileKeys(Buffer.concat([good, Buffer.from('x')])).size).toBe(0);
    expect(parseFileKeys(Buffer.from(good.toString('latin1').replace('lineage-file-keys 1 2', 'lineage-file-keys 1 3'), 'latin1')).size).toBe(0);
    expect(parseFileKeys(Buffer.from(good.toString('latin1').replace(digest('b'), digest('a')), 'latin1')).size).toBe(0);
    expect(parseFileKeys(Buffer.from('lineage-record-memo 1 x 0\n')).size).toBe(0);
    expect(parseFileKeys(Buffer.from('')).size).toBe(0);
  });
});
