import { describe, expect, it } from 'vitest';
import type { AgentSummary } from './api-types';
import {
  agentMatches,
  fleetCount,
  fleetQuery,
  fleetRows,
  fleetSortParam,
  fleetSortProblem,
  FLEET_SORT_KEYS,
  nextFleetSort,
  parseFleetSort,
  sortAgents,
  type FleetSort,
} from './fleet';

let n = 0;
function agent(name: string, over: Partial<AgentSummary> = {}): AgentSummary {
  n += 1;
  return {
    id: over.id ?? `0000000${n % 10}-0000-4000-8000-${String(n).padStart(12, '0')}`,
    name,
    runtime: 'openclaw',
    latest_sequence: 1,
    last_sync_at: '2026-12-01T08:00:00.000Z',
    live_records: 0,
    syncs_7d: 0,
    changed_records_7d: 0,
    activity: [],
    index_behind: false,
    ...over,
  };
}

const names = (agents: AgentSummary[]) => agents.map((a) => a.name);
const ids = (agents: AgentSummary[]) => agents.map((a) => a.id);

describe('sortAgents', () => {
  it('sorts names as a reader does: numbers by value, case and accents beside their letter', () => {
    const fleet = ['hm-10', 'hm-02', 'Zed', 'émile', 'hm-2', 'atlas', 'Emile', 'Atlas'].map((x) => agent(x));
    expect(names(sortAgents(fleet, { key: 'name', dir: 'asc' }))).toEqual(['Atlas', 'atlas', 'Emile', 'émile', 'hm-02', 'hm-2', 'hm-10', 'Zed']);
    expect(names(sortAgents(fleet, { key: 'name', dir: 'desc' }))).toEqual(['Zed', 'hm-10', 'hm-2', 'hm-02', 'émile', 'Emile', 'atlas', 'Atlas']);
  });

  it('breaks every tie by name ascending, then id, in both directions, whatever order the agents came in', () => {
    const a = agent('beta', { id: 'bbbbbbbb-0000-4000-8000-000000000000', live_records: 5 });
    const b = agent('alpha', { id: 'cccccccc-0000-4000-8000-000000000000', live_records: 5 });
    const c = agent('alpha', { id: 'aaaaaaaa-0000-4000-8000-000000000000', live_records: 5 });
    const d = agent('gamma', { id: 'dddddddd-0000-4000-8000-000000000000', live_records: 9 });
    const orders = [[a, b, c, d], [d, c, b, a], [b, d, a, c]];
    for (const order of orders) {
      expect(ids(sortAgents(order, { key: 'live', dir: 'desc' }))).toEqual([d.id, c.id, b.id, a.id]);
      expect(ids(sortAgents(order, { key: 'live', dir: 'asc' }))).toEqual([c.id, b.id, a.id, d.id]);
      expect(ids(sortAgents(order, { key: 'name', dir: 'asc' }))).toEqual([c.id, b.id, a.id, d.id]);
      // Same name: the id decides, ascending even when the names sort descending.
      expect(ids(sortAgents(order, { key: 'name', dir: 'desc' }))).toEqual([d.id, a.id, c.id, b.id]);
    }
  });

  it('sorts each column by its value; a missing value is the smallest', () => {
    const never = agent('never', { runtime: null, latest_sequence: null, last_sync_at: null });
    const old = agent('old', { runtime: 'zeroclaw', latest_sequence: 9, last_sync_at: '2026-11-01T00:00:00Z', live_records: 3, changed_records_7d: 0 });
    const fresh = agent('fresh', { runtime: 'hermes', latest_sequence: 10, last_sync_at: '2026-12-01T10:00:00Z', live_records: 1, changed_records_7d: 4, syncs_7d: 1 });
    const busy = agent('busy', { runtime: 'openclaw', latest_sequence: 2, last_sync_at: '2026-12-01T09:00:00+00:00', live_records: 2, changed_records_7d: 4, syncs_7d: 3 });
    const fleet = [never, old, fresh, busy];
    const by = (sort: FleetSort) => names(sortAgents(fleet, sort));
    expect(by({ key: 'runtime', dir: 'asc' })).toEqual(['never', 'fresh', 'busy', 'old']); // (unknown), Hermes, OpenClaw, ZeroClaw
    expect(by({ key: 'runtime', dir: 'desc' })).toEqual(['old', 'busy', 'fresh', 'never']);
    expect(by({ key: 'sequence', dir: 'desc' })).toEqual(['fresh', 'old', 'busy', 'never']);
    expect(by({ key: 'sequence', dir: 'asc' })).toEqual(['never', 'busy', 'old', 'fresh']);
    // Oldest first puts the agent that never synced at the top: the quietest.
    expect(by({ key: 'last_sync', dir: 'asc' })).toEqual(['never', 'old', 'busy', 'fresh']);
    expect(by({ key: 'last_sync', dir: 'desc' })).toEqual(['fresh', 'busy', 'old', 'never']);
    expect(by({ key: 'live', dir: 'desc' })).toEqual(['old', 'busy', 'fresh', 'never']);
    // Equal changed counts: more syncs is more activity.
    expect(by({ key: 'changed', dir: 'desc' })).toEqual(['busy', 'fresh', 'never', 'old']);
    expect(by({ key: 'changed', dir: 'asc' })).toEqual(['never', 'old', 'fresh', 'busy']);
  });

  it('does not reorder the array it is given', () => {
    const fleet = [agent('b'), agent('a')];
    sortAgents(fleet, { key: 'name', dir: 'asc' });
    expect(names(fleet)).toEqual(['b', 'a']);
  });
});

describe('the sort in the address', () => {
  it('reads and writes ?sort=, the default (name ascending) as no parameter', () => {
    expect(parseFleetSort(null)).toEqual({ key: 'name', dir: 'asc' });
    expect(parseFleetSort('')).toEqual({ key: 'name', dir: 'asc' });
    for (const key of FLEET_SORT_KEYS) {
      for (const dir of ['asc', 'desc'] as const) {
        const param = fleetSortParam({ key, dir });
        expect(parseFleetSort(param)).toEqual({ key, dir });
      }
    }
    expect(fleetSortParam({ key: 'name', dir: 'asc' })).toBeNull();
    expect(fleetSortParam({ key: 'last_sync', dir: 'desc' })).toBe('-last_sync');
  });

  it('says what is wrong with a sort that is not a column, echoing it bounded', () => {
    for (const bad of ['bogus', '--name', '-', 'Name', '<script>']) expect(parseFleetSort(bad)).toBeNull();
    expect(fleetSortProblem('-sequence')).toBeNull();
    expect(fleetSortProblem('bogus')).toContain('sort=“bogus”, which is not a column');
    expect(fleetSortProblem('x'.repeat(500))).toContain('(420 more characters)');
  });

  it('a click on the sorted column turns it round; another column starts in its own first direction', () => {
    const byName = { key: 'name', dir: 'asc' } as const;
    expect(nextFleetSort(byName, 'name')).toEqual({ key: 'name', dir: 'desc' });
    expect(nextFleetSort({ key: 'name', dir: 'desc' }, 'name')).toEqual(byName);
    expect(nextFleetSort(byName, 'last_sync')).toEqual({ key: 'last_sync', dir: 'desc' });
    expect(nextFleetSort(byName, 'runtime')).toEqual({ key: 'runtime', dir: 'asc' });
  });
});

describe('the filter', () => {
  const vega = agent('Vega', { id: '7f3a9c21-0000-4000-8000-000000000001', runtime: 'openclaw' });
  const desk = agent('hermes-desk', { id: 'a1b2c3d4-0000-4000-8000-000000000002', runtime: 'hermes' });
  const ledger = agent('ledger-bot', { id: 'ffee0011-0000-4000-8000-000000000003', runtime: 'zeroclaw' });
  const html = agent('<img src=x onerror=alert(1)>', { id: 'b0000000-0000-4000-8000-000000000004', runtime: null });
  const override = agent('invoice\u202Egpj.exe', { id: 'c0000000-0000-4000-8000-000000000005' });
  const cafe = agent('Caf\u00E9 Ünïcode', { id: 'd0000000-0000-4000-8000-000000000006', runtime: 'hermes' });
  const fleet = [vega, desk, ledger, html, override, cafe];
  const shown = (q: string) => names(fleetRows(fleet, { key: 'name', dir: 'asc' }, q));

  it('matches names case-insensitively, id prefixes and runtimes (key or label)', () => {
    expect(shown('')).toHaveLength(fleet.length);
    expect(shown('   ')).toHaveLength(fleet.length);
    expect(shown('VEGA')).toEqual(['Vega']);
    expect(shown('  desk ')).toEqual(['hermes-desk']);
    expect(shown('7F3A')).toEqual(['Vega']);
    expect(shown('0000')).toEqual([]); // inside the id, not its start
    expect(shown('zeroclaw')).toEqual(['ledger-bot']);
    expect(shown('ZeroClaw')).toEqual(['ledger-bot']);
    expect(shown('hermes')).toEqual(['Café Ünïcode', 'hermes-desk']); // a runtime and a name
  });

  it('compares unicode names in one normal form and case', () => {
    expect(shown('cafe\u0301')).toEqual(['Café Ünïcode']); // decomposed é finds the composed one
    expect(shown('ÜNÏ')).toEqual(['Café Ünïcode']);
  });

  it('treats HTML and pattern characters in a name or the text as plain text', () => {
    expect(shown('<img src=x')).toEqual(['<img src=x onerror=alert(1)>']);
    expect(shown('alert(1)>')).toEqual(['<img src=x onerror=alert(1)>']);
    expect(shown('.*')).toEqual([]);
    expect(shown('<b>')).toEqual([]);
  });

  it('finds a name with a hidden character by what the page shows: the text around it, or its U+XXXX badge', () => {
    expect(shown('invoicegpj')).toEqual(['invoice\u202Egpj.exe']);
    expect(shown('U+202E')).toEqual(['invoice\u202Egpj.exe']);
    expect(shown('invoice\u202Egpj')).toEqual(['invoice\u202Egpj.exe']);
    expect(agentMatches(override, 'invoice\u202Dgpj')).toBe(false); // another hidden character is another name
  });

  it('cuts the text to 200 characters and says the count', () => {
    expect([...fleetQuery('x'.repeat(300))]).toHaveLength(200);
    expect(fleetQuery(' a \t b ')).toBe('a b');
    expect(fleetCount(31, 31)).toBe('31 agents');
    expect(fleetCount(12, 31)).toBe('12 of 31 agents');
    expect(fleetCount(0, 1)).toBe('0 of 1 agent');
  });
});
