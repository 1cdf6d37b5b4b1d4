/**
 * The compare page's changed files (changed-files.ts): only the first COMPARE_DIFFED_FILES are read
 * for their diff; the others are listed, their texts never read — so a compare of hundreds of changed
 * files draws a bounded page.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { COMPARE_DIFFED_FILES } from '@/components/compare/limits';
import { HistoryGenerator } from '@/lib/history/testing/generator';
import { tempLedger } from '@/lib/history/testing/temp-ledger';
import { embeddedStorage } from '@/lib/storage/embedded';
import { changedFileTexts } from './changed-files';

const AGENT = '3f2d1c0b-7777-4a2b-8c3d-00000000c0c0';
const FILES = COMPARE_DIFFED_FILES + 5;

describe('the changed files of a compare page', () => {
  const { ledger, cleanup } = tempLedger();
  const storage = embeddedStorage(ledger);
  const text = (s: string) => new TextEncoder().encode(s);
  const path = (i: number) => `notes/n-${String(i).padStart(2, '0')}.txt`;

  beforeAll(async () => {
    const gen = new HistoryGenerator(ledger, AGENT, 7);
    gen.register();
    gen.addRecord();
    for (let i = 0; i < FILES; i++) gen.raw.set(path(i), text(`note ${i}\nfirst\n`));
    await gen.sync(0);
    for (let i = 0; i < FILES; i++) gen.raw.set(path(i), text(`note ${i}\nsecond\n`));
    await gen.sync(1);
  });
  afterAll(() => cleanup());

  it(`reads the first ${COMPARE_DIFFED_FILES} for their diff and lists the others unread`, async () => {
    const comparison = (await storage.compareWorkspace({ agentId: AGENT, from: 0, to: 1, limit: 50 }))!;
    expect(comparison.files.changed).toHaveLength(FILES);
    const reads: string[] = [];
    const watched = { ...storage, getWorkspaceFile: (p: Parameters<typeof storage.getWorkspaceFile>[0]) => (reads.push(p.path), storage.getWorkspaceFile(p)) };
    const files = await changedFileTexts(watched, AGENT, comparison);
    expect(files.map((f) => f.path)).toEqual(comparison.files.changed.map((f) => f.path));
    const drawn = files.slice(0, COMPARE_DIFFED_FILES);
    expect(drawn.every((f) => !f.listed && f.texts !== null)).toBe(true);
    expect(drawn[3]!.texts).toEqual({ before: `note 3\nfirst\n`, after: `note 3\nsecond\n` });
    expect(files.slice(COMPARE_DIFFED_FILES).every((f) => f.listed === true && f.texts === null)).toBe(true);
    expect(new Set(reads)).toEqual(new Set(drawn.map((f) => f.path)));
  });
});
