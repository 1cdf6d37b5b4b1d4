/**
 * Blame against a hand-built history through the real pipeline (lib/history/testing/blame-history.ts):
 * sections born at different sequences, one edited later, sections moved from another file (born
 * stays the original), the file's own lines attributed to its raw change; and a record-only delta.
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closeDatabase } from '@/db/client';
import { readSnapshot } from '@/lib/core/archive';
import { openLedger, registerAgent, type Ledger } from '@/lib/ledger';
import { ingestDelta, ingestSnapshot } from '@/lib/storage/embedded-ingest';
import { NEW_SECTION, recordOnlyDelta, standardWorkspace } from '@/tests/interop/reference-archives';
import { ARCHIVED, blameSummary, buildBlameHistory, BLAME_STEPS, DAILY } from '../testing/blame-history';
import { tempLedger } from '../testing/temp-ledger';
import { getFileBlame, type BlameSectionBlock, type FileBlame } from './blame';

let ledger: Ledger;
let agentId: string;
let cleanup: () => Promise<void>;

beforeAll(async () => {
  const history = await buildBlameHistory();
  agentId = history.agentId;
  cleanup = history.cleanup;
  ledger = openLedger(history.dataDir);
}, 120_000);
afterAll(async () => {
  closeDatabase(ledger.db);
  await cleanup();
});

const blame = (seq: number, path: string) => getFileBlame({ db: ledger.db, agentId, seq, path })!;
const syncedAt = (seq: number) =>
  (ledger.db.sqlite.prepare('SELECT created_at FROM ledger_entries WHERE agent_id = ? AND seq = ?').pluck().get(agentId, seq) as string);
const section = (b: FileBlame, heading: string) => b.blocks.find((x): x is BlameSectionBlock => x.kind === 'section' && x.heading === heading)!;
const summary = blameSummary;

/** Every line exactly once, in order, and the blocks' lines are the file's. */
function expectCovers(b: FileBlame, text: string) {
  const lines = text.split('\n');
  if (lines.at(-1) === '') lines.pop();
  expect(b.line_count).toBe(lines.length);
  let next = 1;
  for (const block of b.blocks) {
    expect(block.line_start).toBe(next);
    next = block.line_end + 1;
  }
  expect(next).toBe(lines.length + 1);
  expect(b.blocks.flatMap((x) => x.lines)).toEqual(lines);
}

describe('blame of a file at a sequence', () => {
  it('gives each section its birth and last content change; metadata-only updates and line shifts are no change', () => {
    const b = blame(4, 'MEMORY.md');
    expectCovers(b, BLAME_STEPS[4]!['MEMORY.md']!);
    expect(summary(b.blocks)).toEqual([
      { lines: [1, 2], file: 2 },
      { lines: [3, 5], heading: 'Now', born: 0, changed: 2, moved: null },
      { lines: [6, 8], heading: 'Added', born: 1, changed: 1, moved: null },
      { lines: [9, 10], heading: 'Later', born: 0, changed: 0, moved: null },
    ]);
    const now = section(b, 'Now');
    expect(now.born).toMatchObject({ seq: 0, at: syncedAt(0), file: 'MEMORY.md', record_id: now.record_id });
    expect(now.changed).toMatchObject({ seq: 2, at: syncedAt(2) });
    expect(b.file_changed).toEqual({ seq: 2, at: syncedAt(2) });
    expect(b.unplaced_record_ids).toEqual([]);
    expect(b).toMatchObject({ agent_id: agentId, seq: 4, path: 'MEMORY.md', binary: false, reconstructed: false });
  });

  it('at an earlier sequence, shows that sequence\'s file and history only', () => {
    const b = blame(1, 'MEMORY.md');
    expectCovers(b, BLAME_STEPS[1]!['MEMORY.md']!);
    expect(summary(b.blocks)).toEqual([
      { lines: [1, 2], file: 1 },
      { lines: [3, 5], heading: 'Now', born: 0, changed: 0, moved: null },
      { lines: [6, 8], heading: 'Added', born: 1, changed: 1, moved: null },
      { lines: [9, 10], heading: 'Later', born: 0, changed: 0, moved: null },
    ]);
  });

  it('a section moved from another file keeps its original birth; the move is shown apart from the change', () => {
    const atMove = blame(3, ARCHIVED);
    expectCovers(atMove, BLAME_STEPS[3]![ARCHIVED]!);
    expect(summary(atMove.blocks)).toEqual([
      { lines: [1, 2], file: 3 },
      { lines: [3, 5], heading: 'Standup', born: 0, changed: 0, moved: 3 },
      { lines: [6, 7], heading: 'Afternoon', born: 0, changed: 0, moved: 3 },
    ]);
    const standup = section(atMove, 'Standup');
    expect(standup.moved).toEqual({ seq: 3, at: syncedAt(3), from_file: DAILY, to_file: ARCHIVED });
    expect(standup.born.file).toBe(DAILY);
    expect(standup.born.record_id).not.toBe(standup.record_id);

    const later = blame(4, ARCHIVED);
    expect(summary(later.blocks)).toEqual([
      { lines: [1, 2], file: 4 },
      { lines: [3, 5], heading: 'Standup', born: 0, changed: 0, moved: 3 },
      { lines: [6, 7], heading: 'Afternoon', born: 0, changed: 4, moved: 3 },
    ]);
  });

  it('is null for a path not in the workspace then, and refuses a sequence past the latest', () => {
    expect(getFileBlame({ db: ledger.db, agentId, seq: 2, path: ARCHIVED })).toBeNull();
    expect(getFileBlame({ db: ledger.db, agentId, seq: 4, path: DAILY })).toBeNull();
    expect(getFileBlame({ db: ledger.db, agentId: '00000000-0000-0000-0000-000000000000', seq: 0, path: 'MEMORY.md' })).toBeNull();
    expect(() => getFileBlame({ db: ledger.db, agentId, seq: 5, path: 'MEMORY.md' })).toThrow(/outside 0..4/);
  });
});

describe('blame of a file rendered from a record-only delta', () => {
  let ref: ReturnType<typeof tempLedger>;
  let refAgent: string;
  let tmp: string;
  beforeAll(async () => {
    ref = tempLedger();
    tmp = await fs.mkdtemp(path.join(os.tmpdir(), 'blame-record-only-'));
    const { exported, bytes } = await standardWorkspace(path.join(tmp, 'ws'));
    refAgent = exported.agentId;
    registerAgent({ ledger: ref.ledger, id: refAgent, name: 'standard', sourceRuntime: 'openclaw', tenantId: null, now: new Date('2026-06-01T00:00:00Z') });
    await ingestSnapshot({ ledger: ref.ledger, agentId: refAgent, bytes, now: new Date('2026-06-01T00:00:00Z') });
    const delta = await recordOnlyDelta((await readSnapshot(bytes)).records, refAgent, 0);
    await ingestDelta({ ledger: ref.ledger, agentId: refAgent, baseSequence: 0, bytes: delta, now: new Date('2026-06-02T00:00:00Z') });
  });
  afterAll(async () => {
    ref.cleanup();
    await fs.rm(tmp, { recursive: true, force: true });
  });

  it('places the new section (its line numbers are stale) and the old ones, on the reconstructed text', () => {
    const b = getFileBlame({ db: ref.ledger.db, agentId: refAgent, seq: 1, path: 'MEMORY.md' })!;
    expect(b.reconstructed).toBe(true);
    expect(b.file_changed.seq).toBe(1);
    expect(b.unplaced_record_ids).toEqual([]);
    const sections = b.blocks.filter((x): x is BlameSectionBlock => x.kind === 'section');
    const added = sections.find((s) => s.lines.join('\n').startsWith(NEW_SECTION))!;
    expect(added).toMatchObject({ born: { seq: 1 }, changed: { seq: 1 } });
    expect(sections.filter((s) => s !== added).map((s) => s.born.seq)).toEqual(sections.filter((s) => s !== added).map(() => 0));
    expect(sections.length).toBeGreaterThan(1);
    let next = 1;
    for (const block of b.blocks) {
      expect(block.line_start).toBe(next);
      next = block.line_end + 1;
    }
    expect(next).toBe(b.line_count + 1);
  });
});
