/**
 * A section renamed in its own file (its heading changed, its body kept — provenance.ts `linkMoves`
 * pairs it as a move) as the dashboard renders it (server-side render of the real components):
 * "renamed in MEMORY.md", never "moved from MEMORY.md to MEMORY.md"; a move between files still
 * names both; compare says "renamed" for a heading changed and "edited" only for a body changed.
 */
import { createElement, type ReactElement } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { AppRouterContext } from 'next/dist/shared/lib/app-router-context.shared-runtime';
import { MoveStep } from '@/components/lineage/MoveStep';
import { Provenance } from '@/components/lineage/Provenance';
import { VersionCard } from '@/components/lineage/VersionCard';
import { OpCard } from '@/components/sequence/OpCard';
import { ChangesFeed } from '@/components/changes/ChangesFeed';
import { MemoryEntry, moveChangeWords } from '@/components/compare/MemoryEntry';
import { BlameGutter } from '@/components/workspace/BlameGutter';
import type { BlameSectionBlock } from '@/lib/history/queries/blame-blocks';
import type { CompareMemory } from '@/lib/history/queries/compare';
import type { ChangeItem, Lineage, LineageVersion, SequenceOp } from '@/lib/ui/api-types';

const noop = () => undefined;
const render = (element: ReactElement) => renderToStaticMarkup(createElement(QueryClientProvider, { client: new QueryClient() }, createElement(AppRouterContext.Provider, {
  value: { back: noop, forward: noop, refresh: noop, push: noop, replace: noop, prefetch: noop, hmrRefresh: noop } as never,
}, element)));
/** The page's words, markup gone. */
const text = (html: string) => html.replace(/<[^>]*>/g, '').replace(/\s+/g, ' ');

const AGENT = '0b5c7d1e-1111-4222-8333-444455556666';
const OLD = '0b5c7d1e-1111-4222-8333-000000000001';
const NEW = '0b5c7d1e-1111-4222-8333-000000000002';
const BODY = 'Office on Summer St.';

const version = (over: Partial<LineageVersion>): LineageVersion => ({
  seq: 5, entry_kind: 'delta', op: 'move', synced_at: '2026-11-03T08:00:00.000Z', record_id: NEW,
  content: `## Boston Office\n${BODY}`, content_sha256: '', memory_type: 'semantic', namespace: 'curated', status: 'active',
  origin_file: 'MEMORY.md', heading: 'Boston Office', tags: [], record: {}, from_file: 'MEMORY.md', to_file: 'MEMORY.md',
  from_record_id: OLD, to_record_id: NEW, ...over,
}) as LineageVersion;

const sides = (over: { from: string; to: string }) => ({ op: 'move', record_id: NEW, moved_from: OLD, content: `## Boston Office\n${BODY}`, previous_content: null, memory_type: 'semantic', origin_file: over.to, from_file: over.from, heading: 'Boston Office' }) as unknown as SequenceOp;

const change = (over: Partial<ChangeItem>): ChangeItem => ({
  seq: 5, op: 'move', record_id: NEW, heading: 'Boston Office', key: null, origin_file: 'MEMORY.md', memory_type: 'semantic',
  synced_at: '2026-11-03T08:00:00.000Z', snippet: BODY, from_record_id: OLD, from_file: 'MEMORY.md', ...over,
});

const memory = (over: Partial<CompareMemory>): CompareMemory => ({
  record_id: NEW, seq: 5, content: `## Boston Office\n${BODY}`, origin_file: 'MEMORY.md', heading: 'Boston Office', key: null,
  memory_type: 'semantic', namespace: 'curated', status: 'active', tags: [], ...over,
});

describe('a rename in one file says so on every page; a move between files still names both', () => {
  it('the lineage: its version card, its move step and its provenance', () => {
    const card = (v: LineageVersion, previous: LineageVersion) => text(render(createElement(VersionCard, { agentId: AGENT, version: v, previous, mode: 'diff' })));
    const born = version({ seq: 0, op: 'create', record_id: OLD, heading: 'Boston', content: `## Boston\n${BODY}`, from_file: undefined, to_file: undefined });
    const renamedCard = card(version({}), born);
    expect(renamedCard).toMatch(/^#5renamed/);
    expect(renamedCard).toContain('heading → Boston Office');
    expect(renamedCard).toContain('renamed in MEMORY.md at #5');
    expect(renamedCard).not.toContain('moved');
    expect(card(version({ heading: null, content: BODY }), born)).toContain('heading removed');
    expect(card(version({ to_file: 'people.md', origin_file: 'people.md' }), born)).toMatch(/^#5moved.*moved from MEMORY\.md to people\.md/);

    expect(text(render(createElement(MoveStep, { agentId: AGENT, version: version({}) })))).toMatch(/^renamed in MEMORY\.md at #5 /);
    expect(text(render(createElement(MoveStep, { agentId: AGENT, version: version({ to_file: 'people.md', origin_file: 'people.md' }) })))).toMatch(/^moved from MEMORY\.md to people\.md at #5 /);
    const lineage = (moves: LineageVersion[]) => ({ moves, record: { born_file: 'MEMORY.md', born_seq: 0 } }) as unknown as Pick<Lineage, 'moves' | 'record'>;
    const renamed = text(render(createElement(Provenance, { agentId: AGENT, lineage: lineage([version({})]) })));
    expect(renamed).toContain('Renamed in MEMORY.md at #5');
    expect(renamed).not.toContain('Moved to');
    expect(text(render(createElement(Provenance, { agentId: AGENT, lineage: lineage([version({ to_file: 'people.md' })]) })))).toContain('Moved to people.md at #5');
  });

  it('the sequence: its op card', () => {
    const renamed = text(render(createElement(OpCard, { agentId: AGENT, seq: 5, op: sides({ from: 'MEMORY.md', to: 'MEMORY.md' }) })));
    expect(renamed).toContain('renamed in MEMORY.md');
    expect(renamed).toContain('renamed from 0b5c7d1e');
    expect(renamed).not.toContain('moved');
    expect(renamed).toMatch(/^renamed/);
    const moved = text(render(createElement(OpCard, { agentId: AGENT, seq: 5, op: sides({ from: 'MEMORY.md', to: 'people.md' }) })));
    expect(moved).toContain('moved from MEMORY.md → people.md');
  });

  it('the changes feed', () => {
    const feed = (c: ChangeItem) => text(render(createElement(ChangesFeed, { groups: [{ agent_id: AGENT, agent_name: 'atlas', day: '2026-11-03', changes: [c] }], showAgent: false })));
    expect(feed(change({}))).toContain('renamed in MEMORY.md');
    expect(feed(change({}))).not.toContain('moved');
    expect(feed(change({ origin_file: 'people.md' }))).toContain('moved MEMORY.md → people.md');
  });

  it('compare: "renamed" for a heading changed, "edited" for a body changed, both when both', () => {
    const before = memory({ record_id: OLD, seq: 0, content: `## Boston\n${BODY}`, heading: 'Boston' });
    expect(moveChangeWords({ before, after: memory({}), content_changed: true })).toBe('renamed');
    expect(moveChangeWords({ before, after: memory({ content: '## Boston Office\nOffice on Congress St.' }), content_changed: true })).toBe('renamed and edited');
    expect(moveChangeWords({ before: memory({ origin_file: 'a.md' }), after: memory({ content: '## Boston Office\nOffice on Congress St.' }), content_changed: true })).toBe('and edited');
    expect(moveChangeWords({ before: memory({ origin_file: 'a.md' }), after: memory({}), content_changed: false })).toBeNull();
    const html = text(render(createElement(MemoryEntry, { agentId: AGENT, change: { kind: 'moved', before, after: memory({}), content_changed: true }, serverDiff: true })));
    expect(html).toContain('renamed to');
    expect(html).toMatch(/Boston Office\s*renamed/);
    expect(html).not.toContain('edited');
    expect(html).toMatch(/^renamed/);
    expect(html).not.toContain('moved');
  });

  it('blame: the section\'s gutter', () => {
    const at = '2026-11-03T08:00:00.000Z';
    const block = (to: string): BlameSectionBlock => ({
      kind: 'section', line_start: 3, line_end: 4, lines: ['## Boston Office', BODY], record_id: NEW, heading: 'Boston Office',
      born: { seq: 0, at, record_id: OLD, file: 'MEMORY.md' }, changed: { seq: 5, at, record_id: NEW }, moved: { seq: 5, at, from_file: 'MEMORY.md', to_file: to },
    });
    const renamed = text(render(createElement(BlameGutter, { agentId: AGENT, path: 'MEMORY.md', block: block('MEMORY.md') })));
    expect(renamed).toContain('renamed #5');
    expect(renamed).not.toContain('moved');
    expect(text(render(createElement(BlameGutter, { agentId: AGENT, path: 'people.md', block: block('people.md') })))).toContain('moved #5');
  });
});
