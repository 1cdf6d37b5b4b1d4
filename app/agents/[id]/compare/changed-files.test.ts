/**
 * The compare page's changed files (changed-files.ts): only the first COMPARE_DIFFED_FILES get a diff,
 * and only when both sides fit the per-file and per-page bounds; the others are listed. The plan is
 * made from the comparison's sizes alone — the server reads no file's bytes for the page (the browser
 * fetches the texts of the files drawn), which the signature shows: it is given no storage.
 */
import { describe, expect, it } from 'vitest';
import { COMPARE_DIFFED_FILES } from '@/components/compare/limits';
import type { WorkspaceComparison } from '@/lib/history/queries/compare';
import { HistoryGenerator } from '@/lib/history/testing/generator';
import { tempLedger } from '@/lib/history/testing/temp-ledger';
import { embeddedStorage } from '@/lib/storage/embedded';
import { changedFilePlan, MAX_FILE_BYTES, MAX_TOTAL_BYTES } from './changed-files';

const AGENT = '3f2d1c0b-7777-4a2b-8c3d-00000000c0c0';
const FILES = COMPARE_DIFFED_FILES + 5;

/** A changed file of `before` → `after` bytes. */
const changed = (path: string, before: number, after: number): WorkspaceComparison['files']['changed'][number] => ({
  path, before: { path, sha256: 'a'.repeat(64), size: before, seq: 0 }, after: { path, sha256: 'b'.repeat(64), size: after, seq: 1 },
});
const plan = (files: WorkspaceComparison['files']['changed']) => changedFilePlan({ files: { added: [], removed: [], changed: files } }).map((f) => f.diff);

describe('the changed files of a compare page', () => {
  it(`draws the diffs of the first ${COMPARE_DIFFED_FILES} of a real comparison and lists the others`, async () => {
    const { ledger, cleanup } = tempLedger();
    try {
      const gen = new HistoryGenerator(ledger, AGENT, 7);
      gen.register();
      gen.addRecord();
      const path = (i: number) => `notes/n-${String(i).padStart(2, '0')}.txt`;
      for (let i = 0; i < FILES; i++) gen.raw.set(path(i), new TextEncoder().encode(`note ${i}\nfirst\n`));
      await gen.sync(0);
      for (let i = 0; i < FILES; i++) gen.raw.set(path(i), new TextEncoder().encode(`note ${i}\nsecond\n`));
      await gen.sync(1);
      const comparison = (await embeddedStorage(ledger).compareWorkspace({ agentId: AGENT, from: 0, to: 1, limit: 50 }))!;
      expect(comparison.files.changed).toHaveLength(FILES);
      const files = changedFilePlan(comparison);
      expect(files.map((f) => f.path)).toEqual(comparison.files.changed.map((f) => f.path));
      expect(files.map((f) => f.diff)).toEqual([...Array(COMPARE_DIFFED_FILES).fill('browser'), ...Array(5).fill('listed')]);
      expect(files[3]).toMatchObject({ before: comparison.files.changed[3]!.before, after: comparison.files.changed[3]!.after });
    } finally {
      cleanup();
    }
  });

  it('links a file with a side over the per-file bound instead of drawing it', () => {
    expect(plan([changed('a', MAX_FILE_BYTES + 1, 10), changed('b', 10, MAX_FILE_BYTES + 1), changed('c', MAX_FILE_BYTES, MAX_FILE_BYTES)]))
      .toEqual(['too-large', 'too-large', 'browser']);
  });

  it('draws files in order while the page budget lasts; a file that does not fit leaves the budget to the next', () => {
    const big = MAX_FILE_BYTES - 1; // 8 such files leave 16 bytes of the budget
    const fitting = Math.floor(MAX_TOTAL_BYTES / (2 * big));
    expect(fitting).toBeLessThan(COMPARE_DIFFED_FILES - 1);
    const files = [...Array.from({ length: fitting }, (_, i) => changed(`f${i}`, big, big)), changed('over', big, big), changed('small', 1, 1)];
    expect(plan(files)).toEqual([...Array(fitting).fill('browser'), 'too-large', 'browser']);
  });
});
