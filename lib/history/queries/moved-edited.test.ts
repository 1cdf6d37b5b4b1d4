/**
 * A section moved to another file and edited in the same sync is, by design, a delete and a create
 * (provenance.ts `linkMoves` pairs a move by its text, or by its body under a renamed heading; an
 * edited body matches neither: CONTRACT §5 "move across files ⇒ delete+create"). Through the real
 * pipeline (OpenClaw workspace → sync → ledger → index), what the dashboard says of the new memory
 * (server-side render of the lineage page's Identity and Provenance panels): it does not claim that no
 * move happened, and the old file's history is found by searching the memory's words.
 */
import { createElement, type ReactElement } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AppRouterContext } from 'next/dist/shared/lib/app-router-context.shared-runtime';
import { closeDatabase } from '@/db/client';
import { IdentityCard } from '@/components/lineage/IdentityCard';
import { Provenance } from '@/components/lineage/Provenance';
import { openLedger, type Ledger } from '@/lib/ledger';
import { openclawHistorySandbox } from '@/lib/sync/testing/workspace';
import type { Lineage } from '@/lib/ui/api-types';
import { searchHistory } from '../search/engine';
import { compareWorkspace, getRecordLineage, getRecordsAt } from '../queries';

const FROM = 'memory/semantic/infrastructure.md';
const TO = 'memory/semantic/network.md';

let ledger: Ledger;
let agentId = '';
let cleanup: () => Promise<void> = async () => {};

beforeAll(async () => {
  const { sb, sync } = await openclawHistorySandbox('lineage-moved-edited-');
  cleanup = sb.cleanup;
  await sb.write(FROM, '## Gateway\nThe gateway is 10.20.0.9 on VLAN 7.\n\n## Racks\nRack 4 holds the switches.\n');
  agentId = (await sync()).agent.alf_agent_id;
  // #1: Gateway leaves for network.md and is edited on the way.
  await sb.write(FROM, '## Racks\nRack 4 holds the switches.\n');
  await sb.write(TO, '## Gateway\nThe gateway is 10.20.0.9 on VLAN 8.\n');
  expect((await sync()).sequence).toBe(1);
  ledger = openLedger(sb.dataDir);
}, 60_000);

afterAll(async () => {
  if (ledger) closeDatabase(ledger.db);
  await cleanup();
});

const render = (element: ReactElement) => {
  const noop = () => undefined;
  const router = { back: noop, forward: noop, refresh: noop, push: noop, replace: noop, prefetch: noop, hmrRefresh: noop } as never;
  return renderToStaticMarkup(createElement(AppRouterContext.Provider, { value: router }, element)).replace(/<[^>]*>/g, ' ').replace(/\s+/g, ' ');
};

describe('a section moved to another file and edited in one sync', () => {
  it('is a delete and a create, and the new memory\'s page does not say it never moved', () => {
    const c = compareWorkspace({ db: ledger.db, agentId, from: 0, to: 1 })!;
    expect([c.memories.created.map((m) => m.origin_file), c.memories.deleted.map((m) => m.origin_file), c.counts.moved]).toEqual([[TO], [FROM], 0]);
    const page = getRecordsAt({ db: ledger.db, agentId, at: 1, limit: 10 })!;
    const created = page.items.find((r) => r.origin_file === TO)!;
    const lineage = getRecordLineage({ db: ledger.db, agentId, recordId: created.record_id })! as unknown as Lineage;
    expect([lineage.chain, lineage.record.born_seq, lineage.record.born_file, lineage.moves]).toEqual([[created.record_id], 1, TO, []]);
    const words = render(createElement('div', null, createElement(IdentityCard, { agentId, lineage }), createElement(Provenance, { agentId, lineage })));
    // Born at #1 in network.md: true of this record. No claim that it never moved, and where to look.
    expect(words).toContain('Born at sequence #1');
    expect(words).not.toContain('no move into or out of another file.');
    expect(words).toContain('Born here: no move into or out of another file is on record.');
    expect(words).toContain('A section moved to another file and edited in the same sync is recorded as a new memory (and the old one as deleted): search for its words to find any earlier history.');
    // A memory of the first sync was not moved from anywhere this history holds: no such hint.
    const racks = getRecordsAt({ db: ledger.db, agentId, at: 1, limit: 10 })!.items.find((r) => r.origin_file === FROM)!;
    const first = getRecordLineage({ db: ledger.db, agentId, recordId: racks.record_id })! as unknown as Lineage;
    const firstWords = render(createElement(Provenance, { agentId, lineage: first }));
    expect(firstWords).toContain('Born here: no move into or out of another file is on record.');
    expect(firstWords).not.toContain('recorded as a new memory');
  });

  it('the old file\'s history is found by searching the memory\'s words', () => {
    const r = searchHistory({ db: ledger.db, q: '"The gateway is 10.20.0.9"', agentId });
    expect(r.first).toMatchObject({ sequence: 0, origin_file: FROM, op: 'create' });
    expect(r.appearances.map((a) => [a.sequence, a.origin_file, a.op])).toEqual([[1, TO, 'create']]);
    // Still held (by the new memory): not "deleted".
    expect(r.status).toMatchObject({ present: true, deleted: false });
  });
});
