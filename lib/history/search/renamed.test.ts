/**
 * Search tells a rename from a move, as the lineage page, blame and the changes feed do: a heading
 * renamed in its file (its body kept: one lineage since provenance.ts `linkMoves`' second pass) is
 * op `rename`, "renamed"; a section moved to another file (under its heading or another) is op
 * `move`, "moved". One history, through the real pipeline (OpenClaw workspace → sync → ledger →
 * index), with both; the later appearances as the search page renders them (server-side render).
 */
import { createElement } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AppRouterContext } from 'next/dist/shared/lib/app-router-context.shared-runtime';
import { closeDatabase } from '@/db/client';
import { AppearanceRow } from '@/components/search/AppearanceCard';
import { optionLabel } from '@/components/lineage/VersionCompare';
import type { LineageVersion } from '@/lib/ui/api-types';
import { getRecordLineage } from '../queries';
import { openLedger, type Ledger } from '@/lib/ledger';
import { openclawHistorySandbox } from '@/lib/sync/testing/workspace';
import { searchHistory, type Appearance } from './engine';

const MEMORY = 'MEMORY.md';
const PEOPLE = 'memory/semantic/people.md';
const BOSTON = 'Office on Summer St., badge reader on floor 3.';
const NYC = 'Desk at Hudson Yards, badge from Priya.';
const DENVER = 'Datacenter lease ends in March, badge at the gate.';

let ledger: Ledger;
let agentId = '';
let cleanup: () => Promise<void> = async () => {};

beforeAll(async () => {
  const { sb, sync } = await openclawHistorySandbox('lineage-search-renamed-');
  cleanup = sb.cleanup;
  const memory = (...sections: [string, string][]) => ['# MEMORY', '', ...sections.flatMap(([h, body]) => [`## ${h}`, body, ''])].join('\n');
  await sb.write(MEMORY, memory(['Boston', BOSTON], ['NYC', NYC], ['Denver', DENVER]));
  agentId = (await sync()).agent.alf_agent_id;
  // #1: Boston renamed in its file, its body kept.
  await sb.write(MEMORY, memory(['Boston Office', BOSTON], ['NYC', NYC], ['Denver', DENVER]));
  expect((await sync()).sequence).toBe(1);
  // #2: NYC moved to another file under its heading; #3: Denver moved to it under another heading.
  await sb.write(MEMORY, memory(['Boston Office', BOSTON], ['Denver', DENVER]));
  await sb.write(PEOPLE, `## NYC\n${NYC}\n`);
  expect((await sync()).sequence).toBe(2);
  await sb.write(MEMORY, memory(['Boston Office', BOSTON]));
  await sb.write(PEOPLE, `## NYC\n${NYC}\n\n## Denver DC\n${DENVER}\n`);
  expect((await sync()).sequence).toBe(3);
  ledger = openLedger(sb.dataDir);
}, 60_000);

afterAll(async () => {
  if (ledger) closeDatabase(ledger.db);
  await cleanup();
});

const search = (q: string) => searchHistory({ db: ledger.db, q, agentId, limit: 50 });
/**
 * Each appearance's sequence, op and file; edits left out (the sync marks a section's tier in its
 * tags, an update of the record, at a sequence that depends on the sections around it).
 */
const ops = (q: string) => {
  const r = search(q);
  return r.first ? [r.first, ...r.appearances].filter((a) => a.op !== 'update').map((a) => [a.sequence, a.op, a.origin_file]) : [];
};
/** The words of a later appearance's row on the search page. */
const rowText = (appearance: Appearance) => {
  const noop = () => undefined;
  const router = { back: noop, forward: noop, refresh: noop, push: noop, replace: noop, prefetch: noop, hmrRefresh: noop } as never;
  const html = renderToStaticMarkup(createElement(AppRouterContext.Provider, { value: router }, createElement(AppearanceRow, { appearance, agentName: 'atlas' })));
  return html.replace(/<[^>]*>/g, ' ').replace(/\s+/g, ' ');
};

describe('search: a rename is "renamed", a move "moved"', () => {
  it('a heading renamed in its file is op rename; moves to another file (same heading, or another) are op move', () => {
    expect(ops('"Summer St"')).toEqual([[0, 'create', MEMORY], [1, 'rename', MEMORY]]);
    expect(ops('"Hudson Yards"')).toEqual([[0, 'create', MEMORY], [2, 'move', PEOPLE]]);
    expect(ops('lease')).toEqual([[0, 'create', MEMORY], [3, 'move', PEOPLE]]);
    // The fact is still held, in all three.
    for (const q of ['"Summer St"', '"Hudson Yards"', 'lease']) expect(search(q).status.present).toBe(true);
  });

  it('one search over the three: each later appearance says what happened to it in words', () => {
    const r = search('badge');
    const later = r.appearances.filter((a) => a.sequence > 0 && a.op !== 'update');
    expect(later.map((a) => [a.sequence, a.op])).toEqual([[1, 'rename'], [2, 'move'], [3, 'move']]);
    const words = later.map(rowText);
    expect(words[0]).toMatch(/· renamed /);
    expect(words[0]).not.toMatch(/moved/);
    expect(words[1]).toMatch(/· moved /);
    expect(words[2]).toMatch(/· moved /);
  });

  it('the lineage page\'s version picker says the same: "renamed" for the rename, "moved" for a move between files', () => {
    const labels = (q: string) => {
      const hit = search(q).appearances.at(-1)!;
      const lineage = getRecordLineage({ db: ledger.db, agentId, recordId: hit.record_id })!;
      return (lineage.versions as LineageVersion[]).filter((v) => v.op !== 'update').map((v) => optionLabel(v).split(' · ').slice(0, 2).join(' · '));
    };
    expect(labels('"Summer St"')).toEqual(['#0 · created', '#1 · renamed']);
    expect(labels('"Hudson Yards"')).toEqual(['#0 · created', '#2 · moved']);
    expect(labels('lease')).toEqual(['#0 · created', '#3 · moved']);
  });
});
