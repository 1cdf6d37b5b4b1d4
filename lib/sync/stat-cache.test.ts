import { describe, expect, it } from 'vitest';
import type { StatEntry } from '@/lib/adapters/types';
import { sha256Hex } from '@/lib/core/uuid';
import { encodeStatCache, parseStatCache } from './stat-cache';

const BASE = '1234:5678:1796160000000000000';
const SUMMARY = { agent_name: 'atlas', workspace: '/ws' };
const entry = (mtimeNs: bigint, digest: string | null = null): StatEntry => ({ ino: 42n, size: 17n, mtimeNs, ctimeNs: mtimeNs, digest });
const WRITTEN = 2_000_000_000_000_000_000n;

describe('stat cache file', () => {
  const entries = new Map<string, StatEntry>([
    ['MEMORY.md', entry(WRITTEN - 5_000_000_000n, sha256Hex('digest'))],
    ['memory/a "quoted"\nname.md', entry(WRITTEN - 1n)],
  ]);

  it('reads back what it wrote: an unchanged stat is found, any changed field is not', () => {
    const cache = parseStatCache(encodeStatCache(entries, BASE, 'flat', 3, SUMMARY), WRITTEN)!;
    expect(cache).toMatchObject({ base: BASE, summary: SUMMARY, context: 'flat', sequence: 3, size: 2 });
    const stat = entries.get('MEMORY.md')!;
    expect(cache.lookup('MEMORY.md', stat)).toEqual(stat);
    for (const field of ['ino', 'size', 'mtimeNs', 'ctimeNs'] as const) expect(cache.lookup('MEMORY.md', { ...stat, [field]: stat[field] + 1n })).toBeNull();
    expect(cache.lookup('memory/a "quoted"\nname.md', entries.get('memory/a "quoted"\nname.md')!)).not.toBeNull();
    expect(cache.lookup('USER.md', stat)).toBeNull();
  });

  it("git's racy rule: an entry whose ctime is not older than the cache file is never trusted; an mtime ahead alone is not racy", () => {
    const racy = new Map([['MEMORY.md', entry(WRITTEN)], ['USER.md', { ...entry(WRITTEN - 10n), ctimeNs: WRITTEN + 1n }]]);
    const cache = parseStatCache(encodeStatCache(racy, BASE, 'flat', 3, SUMMARY), WRITTEN)!;
    expect(cache.lookup('MEMORY.md', racy.get('MEMORY.md')!)).toBeNull();
    expect(cache.lookup('USER.md', racy.get('USER.md')!)).toBeNull();
    // The same entries, once the cache is written later, are trusted.
    const later = parseStatCache(encodeStatCache(racy, BASE, 'flat', 3, SUMMARY), WRITTEN + 2n)!;
    expect(later.lookup('MEMORY.md', racy.get('MEMORY.md')!)).not.toBeNull();
    // An mtime set ahead of the clock, its ctime older than the cache: any change since would have moved the ctime.
    const ahead = new Map([['MEMORY.md', { ...entry(WRITTEN + 1_000_000_000_000n), ctimeNs: WRITTEN - 10n }]]);
    expect(parseStatCache(encodeStatCache(ahead, BASE, 'flat', 3, SUMMARY), WRITTEN)!.lookup('MEMORY.md', ahead.get('MEMORY.md')!)).not.toBeNull();
  });

  it('ignores a cache it cannot read exactly: torn, padded, foreign header, repeated path', () => {
    const bytes = encodeStatCache(entries, BASE, 'flat', 3, SUMMARY);
    expect(parseStatCache(bytes.subarray(0, bytes.length - 3), WRITTEN)).toBeNull();
    expect(parseStatCache(Buffer.concat([bytes, Buffer.from('x')]), WRITTEN)).toBeNull();
    expect(parseStatCache(Buffer.from(`lineage-stat-cache 2 ${BASE} flat 3 0\n{}\n`), WRITTEN)).toBeNull();
    expect(parseStatCache(Buffer.alloc(0), WRITTEN)).toBeNull();
    const line = bytes.toString('utf8').split('\n')[2]!;
    expect(parseStatCache(Buffer.from(`lineage-stat-cache 1 ${BASE} flat 3 2\n${JSON.stringify(SUMMARY)}\n${line}\n${line}\n`), WRITTEN)).toBeNull();
  });
});
