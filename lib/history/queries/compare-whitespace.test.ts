/**
 * An update that changed only whitespace at the ends of lines, through the real pipeline (OpenClaw
 * workspace → sync → ledger → index) and as the compare page renders it (server-side render of the
 * real component). A section's stored text ends with the line break of the blank line after it
 * when another section follows it, and without one when it is last in its file; the contract's
 * reconcile keys records by their text `trim_end`'d (CONTRACT §5), so a section whose only change
 * is that line break is no update in one sync — but a section edited and put back while another
 * section came after it is: #0 → #2 below, where the word diff of its two texts shows nothing.
 * Its stored bytes did change (each sequence's page lists its versions), so it stays an update,
 * and the comparison says which kind: `whitespace_only`, and in words what changed.
 */
import { createElement } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AppRouterContext } from 'next/dist/shared/lib/app-router-context.shared-runtime';
import { closeDatabase } from '@/db/client';
import { MemoryEntry } from '@/components/compare/MemoryEntry';
import { whitespaceChangeWords } from '@/lib/ui/whitespace-words';
import { VersionCard } from '@/components/lineage/VersionCard';
import { OpCard } from '@/components/sequence/OpCard';
import type { LineageVersion } from '@/lib/ui/api-types';
import { openLedger, type Ledger } from '@/lib/ledger';
import { whitespaceHistory } from '../testing/whitespace-history';
import { compareWorkspace, getRecordLineage, type WorkspaceComparison } from '../queries';
import { sequenceOpsPage } from './sequence-ops';

let ledger: Ledger;
let agentId = '';
let cleanup: () => Promise<void> = async () => {};

// The history (testing/whitespace-history.ts): #0 Keep, Gateway last; #1 Gateway edited, Coffee after it;
// #2 Gateway put back (its text now ends with the blank line's break); #3 spaces at Keep's first line's end, Coffee edited.
beforeAll(async () => {
  const history = await whitespaceHistory('lineage-compare-ws-');
  ({ agentId, cleanup } = history);
  ledger = openLedger(history.dataDir);
}, 60_000);

afterAll(async () => {
  if (ledger) closeDatabase(ledger.db);
  await cleanup();
});

const compare = (from: number, to: number) => compareWorkspace({ db: ledger.db, agentId, from, to })!;
const updates = (c: WorkspaceComparison) => c.memories.updated.map((u) => [u.after.heading, u.whitespace_only]);
/** The compare page's entry of an update, server-rendered, and its words (markup gone). */
const render = (element: ReturnType<typeof createElement>) => {
  const noop = () => undefined;
  const router = { back: noop, forward: noop, refresh: noop, push: noop, replace: noop, prefetch: noop, hmrRefresh: noop } as never;
  const html = renderToStaticMarkup(createElement(AppRouterContext.Provider, { value: router }, element));
  return { html, text: html.replace(/<[^>]*>/g, ' ').replace(/\s+/g, ' ') };
};
const rendered = (u: WorkspaceComparison['memories']['updated'][number]) =>
  render(createElement(MemoryEntry, { agentId, change: { kind: 'updated', ...u }, serverDiff: true }));
/** The lineage page's card of the version at `seq` of the memory under `heading` (diff mode, against the version before it). */
const card = (heading: string, seq: number) => {
  const recordId = compare(0, 3).memories.updated.find((u) => u.after.heading === heading)!.after.record_id;
  const versions = getRecordLineage({ db: ledger.db, agentId, recordId })!.versions as LineageVersion[];
  const i = versions.findIndex((v) => v.seq === seq);
  return render(createElement(VersionCard, { agentId, version: versions[i]!, previous: versions[i - 1], mode: 'diff' }));
};

describe('compare: an update of whitespace only is said to be one', () => {
  it('a section edited and put back while a section came after it (#0 → #2): an update of whitespace only, in words', () => {
    const c = compare(0, 2);
    expect(updates(c)).toEqual([['Gateway', true]]);
    const [u] = c.memories.updated;
    // The stored bytes differ by the line break only.
    expect([u!.before.content, u!.after.content]).toEqual(['## Gateway\nThe gateway is 10.20.0.9.', '## Gateway\nThe gateway is 10.20.0.9.\n']);
    const page = rendered(u!);
    expect(page.html).toContain('data-testid="compare-whitespace-only"');
    expect(page.text).toContain('whitespace only');
    expect(page.text).toContain('Only whitespace changed: a line break added at the end.');
    // No word diff, which would show an empty change.
    expect(page.html).not.toContain('data-testid="folded-diff"');
    expect(c.memories.created.map((m) => m.heading)).toEqual(['Coffee']);
  });

  it('a real edit is not whitespace only, and is drawn as a word diff (#0 → #1, #1 → #2)', () => {
    for (const c of [compare(0, 1), compare(1, 2)]) {
      expect(updates(c)).toEqual([['Gateway', false]]);
      const page = rendered(c.memories.updated[0]!);
      expect(page.html).not.toContain('compare-whitespace');
      expect(page.html).toContain('data-testid="folded-diff"');
    }
  });

  it('spaces added at the end of a line (#2 → #3) are an update of whitespace only, beside a real edit', () => {
    const c = compare(2, 3);
    expect(updates(c)).toEqual([['Coffee', false], ['Keep', true]]);
    const keep = c.memories.updated.find((u) => u.after.heading === 'Keep')!;
    expect(rendered(keep).text).toContain('Only whitespace changed: spaces at the end of line 2 changed.');
    // Over the whole history the same: Gateway's line break, Keep's spaces, Coffee's word.
    expect(updates(compare(0, 3))).toEqual([['Gateway', true], ['Keep', true]]);
  });

  it('the lineage page says it too: a version changed only in whitespace is said in words, an edit drawn as a word diff', () => {
    const keep = card('Keep', 3);
    expect(keep.text).toContain('Only whitespace changed: spaces at the end of line 2 changed.');
    expect(keep.html).not.toContain('data-testid="diff-insert"');
    const gateway = card('Gateway', 2);
    expect(gateway.html).not.toContain('version-whitespace');
    expect(gateway.html).toContain('10.20.0.9');
  });

  it('the sequence page says it too: an update of whitespace only in words, an edit of the same sync as a word diff', () => {
    const ops = sequenceOpsPage(ledger.db, agentId, 3, 'update', 50).items;
    const op = (heading: string) => render(createElement(OpCard, { agentId, seq: 3, op: ops.find((o) => o.heading === heading)! }));
    const keep = op('Keep');
    expect(keep.html).toContain('data-testid="op-whitespace"');
    expect(keep.text).toContain('Only whitespace changed: spaces at the end of line 2 changed.');
    const coffee = op('Coffee');
    expect(coffee.html).not.toContain('op-whitespace');
    expect(coffee.html).toContain('noir');
  });

  it('says each kind of whitespace change in words, and nothing for texts that differ otherwise', () => {
    expect(whitespaceChangeWords('a\nb', 'a\nb\n\n')).toBe('Only whitespace changed: 2 line breaks added at the end.');
    expect(whitespaceChangeWords('a\nb\n', 'a\nb')).toBe('Only whitespace changed: a line break removed from the end.');
    expect(whitespaceChangeWords('a \nb \nc ', 'a\nb\nc')).toBe('Only whitespace changed: spaces at the end of lines 1 and 2 changed; spaces at the end of the text changed.');
    expect(whitespaceChangeWords('a\r\nb\r\n', 'a\nb\n')).toBe('Only whitespace changed: line endings changed.');
    expect(whitespaceChangeWords('a \nb\nc\nd ', 'a\nb \nc \nd')).toBe('Only whitespace changed: spaces at the end of 3 lines changed; spaces at the end of the text changed.');
    expect(whitespaceChangeWords('a b', 'a  b')).toBeNull();
    expect(whitespaceChangeWords('a', 'a')).toBeNull();
  });
});
