import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { uuidV5 } from '@/lib/core/uuid';
import { NS } from '@/lib/core/ids';
import { tempLedger } from '@/lib/history/testing/temp-ledger';
import type { Ledger } from '@/lib/ledger';
import { searchHistory } from './engine';
import { FactHistory, type MemoryState } from './testing/fact-history';

const ATLAS = '7a7a7a7a-1111-4a2b-8c3d-000000000001';
const BOLT = '7a7a7a7a-1111-4a2b-8c3d-000000000002';
const CARGO = '7a7a7a7a-1111-4a2b-8c3d-000000000003';
const DELTA = '7a7a7a7a-1111-4a2b-8c3d-000000000004';
const id = (n: string) => uuidV5(NS.alf, `search-test:${n}`);
const mem = (n: string, content: string, file = 'memory/semantic/infrastructure.md'): MemoryState => ({ id: id(n), file, content });

let ledger: Ledger;
let cleanup: () => void;
const search = (q: string, agentId?: string) => searchHistory({ db: ledger.db, q, ...(agentId ? { agentId } : {}), limit: 500 });
const seqs = (q: string, agentId?: string) => {
  const r = search(q, agentId);
  return r.first ? [r.first, ...r.appearances].map((a) => `${a.sequence}:${a.op}`) : [];
};

beforeAll(async () => {
  ({ ledger, cleanup } = tempLedger());
  const atlas = new FactHistory(ledger, ATLAS, Date.parse('2026-11-01T08:00:00Z')).register('atlas');
  const gw = mem('gw', 'The LAN gateway is 10.20.0.53 (fanless box).');
  const redis = mem('redis', 'Cache: Redis 7.2 on the edge node.');
  const evt = mem('evt', 'Incident evt-00012-a1b2c3 closed.', 'memory/episodic/2026-11-01.md');
  const muller = mem('muller', 'Contract signed by MÜLLER GmbH; ÜL review pending.');
  await atlas.sync([gw, redis, evt]); // 0
  await atlas.sync([gw, redis, evt, mem('ip5', 'DNS at 10.20.0.5, backup (redis) too.')]); // 1
  await atlas.sync([{ ...gw, content: 'The LAN   gateway\nis 10.20.0.53, still fanless.' }, redis, evt, muller]); // 2
  await atlas.sync([gw, redis, { ...evt, file: 'memory/archive/2026/11/2026-11-01.md', id: id('evt-moved') }, muller, mem('rs', 'Client library: redisson.')]); // 3: evt moved
  await atlas.sync([gw, redis, muller]); // 4: the moved evt record deleted, ip5 gone earlier
  await atlas.sync([gw, { ...redis, content: 'Cache: memcached on the edge node.' }, muller, mem('note', 'Nothing to see.')]); // 5: redis edited away
  const bolt = new FactHistory(ledger, BOLT, Date.parse('2026-11-05T08:00:00Z')).register('bolt');
  await bolt.sync([mem('b-gw', 'Our gateway is fanless too.'), mem('b-muller', 'Herr Müller called.')]);
  const cargo = new FactHistory(ledger, CARGO, Date.parse('2026-11-06T08:00:00Z')).register('cargo');
  await cargo.sync([mem('c-a', 'Backups go to kestrel-9.')]); // 0
  await cargo.sync([mem('c-a', 'Backups go to kestrel-9.'), mem('c-b', 'kestrel-9 also holds the vault.')]); // 1 (delta)
  const delta = new FactHistory(ledger, DELTA, Date.parse('2026-11-07T08:00:00Z')).register('delta');
  await delta.sync([
    mem('d-composed', 'Café Zürich'.normalize('NFC')), mem('d-decomposed', 'Café Zürich'.normalize('NFD')), mem('d-plain', 'Cafe Zurich'), mem('d-deva', 'किताब'),
  ]);
  rolloverSeq = await cargo.rollover([mem('c-a', 'Backups go to kestrel-9.'), mem('c-b', 'The vault moved to osprey-2.')]); // 1 again: c-b's later entry there no longer says it
});

let rolloverSeq = -1;

afterAll(() => cleanup());

describe('whole tokens', () => {
  it('10.20.0.5 does not match 10.20.0.53', () => {
    expect(seqs('10.20.0.5', ATLAS)).toEqual(['1:create']);
    expect(seqs('10.20.0.53', ATLAS)).toEqual(['0:create', '2:update', '3:update']);
  });

  it('redis matches Redis 7.2 and (redis) but not redisson; redis* does', () => {
    const plain = search('redis', ATLAS);
    expect([plain.first, ...plain.appearances].map((a) => a!.record_id).sort()).toEqual([id('ip5'), id('redis')].sort());
    expect(search('redis*', ATLAS).total).toBe(3);
    expect(search('redisson', ATLAS).total).toBe(1);
  });

  it('a hyphenated id matches itself, across a move', () => {
    const r = search('evt-00012-a1b2c3', ATLAS);
    expect([r.first, ...r.appearances].map((a) => `${a!.sequence}:${a!.origin_file}`)).toEqual([
      '0:memory/episodic/2026-11-01.md', '3:memory/archive/2026/11/2026-11-01.md',
    ]);
    // The rule is about letters and digits: a hyphen ends a token.
    expect(search('evt-00012', ATLAS).total).toBe(2);
    expect(search('evt-0001', ATLAS).total).toBe(0);
  });
});

describe('several words, phrases, case', () => {
  it('unquoted words must all be in one version, in any order', () => {
    expect(seqs('fanless gateway', ATLAS)).toEqual(['0:create', '2:update', '3:update']);
    expect(seqs('fanless redis', ATLAS)).toEqual([]);
    expect(seqs('gateway fanless')).toEqual(['0:create', '2:update', '3:update', '0:create']);
  });

  it('a quoted phrase is exact, with runs of whitespace equal, and mixes with words', () => {
    expect(seqs('"LAN gateway"', ATLAS)).toEqual(['0:create', '2:update', '3:update']);
    expect(seqs('"LAN gateway" fanless', ATLAS)).toEqual(['0:create', '2:update', '3:update']);
    expect(seqs('"gateway LAN"', ATLAS)).toEqual([]);
    expect(seqs('"gateway is" 10.20.0.53', ATLAS)).toEqual(['0:create', '2:update', '3:update']);
  });

  it('folds Unicode case at every length', () => {
    expect(seqs('müller')).toEqual(['2:create', '0:create']);
    expect(seqs('MÜLLER', BOLT)).toEqual(['0:create']);
    // One or two characters unquoted: a fragment, found inside words too; quoted: the whole token.
    expect(seqs('ül')).toEqual(['2:create', '0:create']);
    expect(seqs('ÜL', BOLT)).toEqual(['0:create']);
    expect(seqs('"ül"')).toEqual(['2:create']);
    expect(seqs('"ül"', BOLT)).toEqual([]);
    expect(seqs('ß', BOLT)).toEqual([]);
    expect(search('m', BOLT).first?.highlights).toEqual([[5, 6]]);
  });

  it('treats FTS syntax as text and refuses NUL and over-long queries in words', () => {
    for (const q of ['NEAR(gateway fanless)', 'content:gateway', '^gateway', 'gateway OR redis', '"gateway', 'gate"way"', '(redis)']) {
      expect(() => search(q), q).not.toThrow();
    }
    expect(search('(redis)', ATLAS).total).toBe(1);
    expect(search('"LAN gateway', ATLAS).total).toBe(3);
    expect(() => search('gate\u0000way')).toThrow(/NUL character/);
    expect(() => search('x'.repeat(501))).toThrow(/too long: at most 500/);
    expect(() => search('""')).toThrow(/no words/);
  });
});

describe('canonically equivalent text is the same text', () => {
  const records = (q: string) => {
    const r = search(q, DELTA);
    return (r.first ? [r.first, ...r.appearances] : []).map((a) => a.record_id).sort();
  };
  const both = [id('d-composed'), id('d-decomposed')].sort();

  it('é typed as one code point or as e + U+0301 finds memories holding either, and never a plain e', () => {
    for (const form of ['NFC', 'NFD'] as const) {
      const q = (text: string) => text.normalize(form);
      expect(records(q('café')), form).toEqual(both);
      expect(records(q('CAFÉ')), form).toEqual(both);
      expect(records(q('"café zürich"')), form).toEqual(both);
      expect(records(q('zü*')), form).toEqual(both);
      expect(records(q('ü')), form).toEqual(both);
    }
    expect(records('cafe')).toEqual([id('d-plain')]);
    expect(records('"cafe zurich"')).toEqual([id('d-plain')]);
    // A fragment is whole characters: the u of a decomposed ü is not a u; a mark that composes with nothing (ि) parts nothing.
    expect(records('u')).toEqual([id('d-plain')]);
    expect(records('क')).toEqual([id('d-deva')]);
  });

  it('a prefix never ends inside a character: cafe* finds neither form of café, caf* and café* both', () => {
    for (const form of ['NFC', 'NFD'] as const) {
      const q = (text: string) => text.normalize(form);
      expect(records(q('caf*')), form).toEqual([...both, id('d-plain')].sort());
      expect(records(q('café*')), form).toEqual(both);
      expect(records(q('CAFÉ*')), form).toEqual(both);
      expect(records(q('zür*')), form).toEqual(both);
    }
    expect(records('cafe*')).toEqual([id('d-plain')]);
    expect(records('zu*')).toEqual([id('d-plain')]);
    // A mark that composes with nothing (ि after क) parts nothing: the prefix before it still matches.
    expect(records('क*')).toEqual([id('d-deva')]);
  });

  it('highlights the whole decomposed word', () => {
    const r = search('café', DELTA);
    const decomposed = [r.first!, ...r.appearances].find((a) => a.record_id === id('d-decomposed'))!;
    expect(decomposed.highlights.map(([s, e]) => decomposed.snippet.slice(s, e))).toEqual(['Café'.normalize('NFD')]);
  });
});

describe('what became of the fact', () => {
  it('is still present in a live record', () => {
    expect(search('10.20.0.53', ATLAS).status).toEqual({ present: true, last_seen_sequence: 5, gone_at_sequence: null, deleted: false });
  });

  it('was edited away', () => {
    expect(search('"Redis 7.2"', ATLAS).status).toEqual({ present: false, last_seen_sequence: 4, gone_at_sequence: 5, deleted: false });
  });

  it('was deleted, after its memory moved (the move is not the deletion)', () => {
    expect(search('evt-00012-a1b2c3', ATLAS).status).toEqual({ present: false, last_seen_sequence: 3, gone_at_sequence: 4, deleted: true });
  });

  it('lists every agent it appeared in', () => {
    const r = search('fanless');
    expect(r.statuses.map((s) => [s.agent_id, s.present])).toEqual([[ATLAS, true], [BOLT, true]]);
    expect(r.status).toMatchObject({ present: true, last_seen_sequence: 5 });
  });

  it('has a status when nothing matched', () => {
    expect(search('zebra-unicorn')).toMatchObject({ first: null, total: 0, statuses: [], status: { present: false, last_seen_sequence: null } });
  });
});

describe('appearances, highlights, suggestions', () => {
  it('highlights only real matches', () => {
    const r = search('10.20.0.5', ATLAS);
    const marked = r.first!.highlights.map(([s, e]) => r.first!.snippet.slice(s, e));
    expect(marked).toEqual(['10.20.0.5']);
    const phrase = search('"LAN gateway" fanless', ATLAS).appearances[0]!;
    expect(phrase.highlights.map(([s, e]) => phrase.snippet.slice(s, e))).toEqual(['LAN   gateway', 'fanless']);
  });

  it('pages later appearances', () => {
    const all = search('gateway');
    const page = searchHistory({ db: ledger.db, q: 'gateway', limit: 1, offset: 1 });
    expect(page.total).toBe(all.total);
    expect(page.appearances).toEqual(all.appearances.slice(1, 2));
  });

  it('suggests indexed terms within edit distance 2 when nothing matches, each with a query that finds something', () => {
    const r = search('gatewey fanless', ATLAS);
    expect(r.total).toBe(0);
    expect(r.suggestions[0]).toEqual({ term: 'gateway', replaces: 'gatewey', query: 'gateway fanless' });
    expect(r.suggestions.length).toBeLessThanOrEqual(5);
    for (const s of r.suggestions) expect(search(s.query, ATLAS).total).toBeGreaterThan(0);
    expect(search('qqqqqqqqqq').suggestions).toEqual([]);
  });
});

describe('a sequence with two entries (a rollover snapshot beside its delta)', () => {
  it('counts the later entry of a record at one sequence, not the one it hides', () => {
    expect(rolloverSeq).toBe(1);
    const r = search('kestrel-9', CARGO);
    expect([r.first, ...r.appearances].map((a) => `${a!.record_id}@${a!.sequence}`)).toEqual([`${id('c-a')}@0`]);
    expect(r.total).toBe(1);
    expect(r.status).toMatchObject({ present: true, last_seen_sequence: 1 });
    expect(search('osprey-2', CARGO).total).toBe(1);
  });

  it('a version hidden there is no appearance anywhere: not in the count, the first appearance or the agents\' statuses', () => {
    for (const scope of [CARGO, undefined]) {
      const r = search('"also holds"', scope);
      expect(r.total).toBe(0);
      expect(r.first).toBeNull();
      expect(r.statuses).toEqual([]);
    }
  });
});
