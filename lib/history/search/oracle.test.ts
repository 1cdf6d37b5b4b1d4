/**
 * The search engine against a brute-force oracle: generated histories of two agents synced through
 * the real ledger, random queries, and an independent scan of every state the generator kept —
 * character by character, its own case comparison, no index. Compares `first`, every appearance,
 * `total`, `status` and `statuses`.
 */
import fc from 'fast-check';
import { expect, it } from 'vitest';
import { NS } from '@/lib/core/ids';
import { prng } from '@/lib/core/prng';
import { uuidV5 } from '@/lib/core/uuid';
import { tempLedger } from '@/lib/history/testing/temp-ledger';
import { searchHistory } from './engine';
import { FactHistory, type MemoryState } from './testing/fact-history';

const TOKENS = [
  '10.20.0.5', '10.20.0.53', '10.20.0', 'redis', 'Redis', 'REDIS', 'redisson', '(redis)', 'redis7', 'evt-00012-a1b2c3', 'evt-00012',
  'MÜLLER', 'müller', 'ül', 'ÜL', 'Üla', 'straße', 'STRASSE', 'STRAẞE', 'ΟΔΟΣ', 'οδος', 'σοφός', '\u212Aelvin', 'kelvin', 'ı', 'I', 'i', 'İ',
  'LAN', 'gateway', 'fanless', 'gate', 'a', 'ab', 'x1', 'the', 'lan-gateway', 'gateway.', 'NEAR', 'OR', ':', '^', '(', 'x', '7.2',
];
const SEPARATORS = [' ', ' ', ' ', '  ', '\n', '\t', ', ', '. ', '-', '', '\n\n'];
const FILES = ['MEMORY.md', 'memory/episodic/2026-11-01.md', 'memory/semantic/infra.md', 'memory/archive/2026/10/2026-10-01.md'];

type OracleTerm = { kind: 'word'; text: string; prefix: boolean } | { kind: 'phrase'; words: string[]; gaps: string[] };

// ---- the oracle: a plain scan with its own notion of characters ----

const isLD = (ch: string | undefined) => ch !== undefined && /[\p{L}\p{N}\p{M}]/u.test(ch);
const isSpace = (ch: string | undefined) => ch !== undefined && /\s/u.test(ch);
const SAME_CLASS = [['ς', 'σ', 'Σ'], ['ß', 'ẞ'], ['k', 'K', '\u212A']];
function sameChar(a: string, b: string): boolean {
  if (a === b || a.toLowerCase() === b.toLowerCase()) return true;
  return SAME_CLASS.some((c) => c.includes(a) && c.includes(b));
}

/** Where `word` matches `text` starting at i: the index after it, or -1. */
function wordAt(text: string[], i: number, word: string[]): number {
  if (i + word.length > text.length) return -1;
  for (let k = 0; k < word.length; k++) if (!sameChar(text[i + k]!, word[k]!)) return -1;
  return i + word.length;
}

function termMatches(content: string, term: OracleTerm): boolean {
  const text = [...content];
  const words = term.kind === 'word' ? [[...term.text]] : term.words.map((w) => [...w]);
  const prefix = term.kind === 'word' && term.prefix;
  // An unquoted word of one or two characters is a fragment: no boundaries at all.
  const fragment = term.kind === 'word' && !term.prefix && [...term.text].length <= 2;
  for (let i = 0; i < text.length; i++) {
    if (!fragment && isLD(words[0]![0]) && i > 0 && isLD(text[i - 1])) continue;
    let at = wordAt(text, i, words[0]!);
    for (let w = 1; w < words.length && at >= 0; w++) {
      let j = at;
      while (isSpace(text[j])) j++;
      at = j === at ? -1 : wordAt(text, j, words[w]!);
    }
    if (at < 0) continue;
    const last = words.at(-1)!;
    if (!prefix && !fragment && isLD(last.at(-1)) && isLD(text[at])) continue;
    return true;
  }
  return false;
}

const matchesAll = (content: string, terms: OracleTerm[]) => terms.every((t) => termMatches(content, t));

interface AgentTruth { history: FactHistory; moves: Map<number, Set<string>> }

function oracle(agents: AgentTruth[], terms: OracleTerm[]) {
  const appearances: { agent_id: string; record_id: string; sequence: number; op: string; synced_at: string }[] = [];
  const statuses: { agent_id: string; present: boolean; last_seen_sequence: number | null; gone_at_sequence: number | null; deleted: boolean }[] = [];
  for (const { history, moves } of agents) {
    const states = history.states;
    const held = states.map((state) => state.some((r) => matchesAll(r.content, terms)));
    let lastAppearance = -1;
    states.forEach((state, seq) => {
      const before = new Map((states[seq - 1] ?? []).map((r) => [r.id, r]));
      for (const r of state) {
        const prev = before.get(r.id);
        const isVersion = !prev || prev.content !== r.content || prev.file !== r.file;
        if (isVersion && matchesAll(r.content, terms)) {
          appearances.push({ agent_id: history.agentId, record_id: r.id, sequence: seq, op: prev ? 'update' : 'create', synced_at: history.syncedAt[seq]! });
          lastAppearance = seq;
        }
      }
    });
    if (lastAppearance < 0) continue;
    const latest = states.length - 1;
    let gone: number | null = null;
    for (let s = lastAppearance + 1; s <= latest && gone === null; s++) if (!held[s]) gone = s;
    const deleted = gone !== null && states[gone - 1]!.filter((r) => matchesAll(r.content, terms)).every((r) =>
      !states[gone!]!.some((x) => x.id === r.id) && !(moves.get(gone!)?.has(r.id) ?? false));
    statuses.push({ agent_id: history.agentId, present: held[latest]!, last_seen_sequence: held[latest] ? latest : gone! - 1, gone_at_sequence: gone, deleted });
  }
  appearances.sort((a, b) => a.synced_at.localeCompare(b.synced_at) || a.sequence - b.sequence || a.agent_id.localeCompare(b.agent_id) || a.record_id.localeCompare(b.record_id));
  const order = [...new Set(appearances.map((a) => a.agent_id))];
  statuses.sort((a, b) => order.indexOf(a.agent_id) - order.indexOf(b.agent_id));
  return { appearances, statuses };
}

// ---- generated histories and queries ----

async function generate(ledger: FactHistory['ledger'], seed: number): Promise<AgentTruth[]> {
  const rand = prng(seed);
  const pick = <T,>(xs: readonly T[]) => xs[Math.floor(rand() * xs.length)]!;
  const text = () => Array.from({ length: 1 + Math.floor(rand() * 7) }, () => pick(TOKENS) + pick(SEPARATORS)).join('').trim() || 'x';
  const out: AgentTruth[] = [];
  for (const [n, offset] of [[1, 0], [2, 1800_000]] as const) {
    const agentId = `7b7b7b7b-2222-4a2b-8c3d-00000000000${n}`;
    const history = new FactHistory(ledger, agentId, Date.parse('2026-11-01T08:00:00Z') + offset).register(`agent-${n}`);
    const moves = new Map<number, Set<string>>();
    let counter = 0;
    const fresh = (content = text(), file = pick(FILES)): MemoryState => ({ id: uuidV5(NS.alf, `oracle:${seed}:${n}:${counter++}`), file, content });
    let state: MemoryState[] = Array.from({ length: 1 + Math.floor(rand() * 3) }, () => fresh());
    const syncs = 3 + Math.floor(rand() * 5);
    for (let s = 0; s < syncs; s++) {
      const moved = new Map<string, MemoryState>();
      if (s > 0) {
        for (let k = 0; k < 1 + Math.floor(rand() * 3); k++) {
          const roll = rand();
          const target = state.length > 0 ? pick(state) : null;
          if (!target || roll < 0.3) state = [...state, fresh()];
          else if (roll < 0.55) state = state.map((r) => (r === target ? { ...r, content: rand() < 0.5 ? text() : `${r.content} ${pick(TOKENS)}` } : r));
          else if (roll < 0.75) state = state.filter((r) => r !== target);
          else if (!moved.has(target.id)) {
            const dest = fresh(target.content, pick(FILES.filter((f) => f !== target.file)));
            moved.set(target.id, dest);
            state = [...state.filter((r) => r !== target), dest];
          }
        }
      }
      if ((await history.sync(state)) === null) {
        state = [...state, fresh()];
        await history.sync(state);
      }
      // A memory edited and moved in one sync is no move: only destinations holding the source's synced content count.
      const before = new Map((history.states.at(-2) ?? []).map((r) => [r.id, r.content]));
      moves.set(history.states.length - 1, new Set([...moved].filter(([from, dest]) => state.includes(dest) && before.get(from) === dest.content).map(([from]) => from)));
    }
    out.push({ history, moves });
  }
  return out;
}

function randomQuery(rand: () => number, contents: readonly string[]): OracleTerm[] {
  const pick = <T,>(xs: readonly T[]) => xs[Math.floor(rand() * xs.length)]!;
  const caseOf = (t: string) => { const r = rand(); return r < 0.2 ? t.toUpperCase() : r < 0.4 ? t.toLowerCase() : t; };
  const wordy = TOKENS.filter((t) => !/\s/.test(t));
  return Array.from({ length: 1 + Math.floor(rand() * 3) }, (): OracleTerm => {
    const roll = rand();
    if (roll < 0.25) {
      // Two neighbouring words of some version, so that phrases often match.
      const words = pick(contents).split(/\s+/u).filter((w) => w.length > 0 && !w.includes('"'));
      const at = Math.floor(rand() * Math.max(1, words.length - 1));
      const pair = words.length >= 2 ? [words[at]!, words[at + 1]!] : [caseOf(pick(wordy)), caseOf(pick(wordy))];
      return { kind: 'phrase', words: pair.map(caseOf), gaps: [pick([' ', '  ', ' \t '])] };
    }
    const token = caseOf(pick(wordy));
    if (roll < 0.3) return { kind: 'phrase', words: [token], gaps: [] };
    if (roll < 0.4 && [...token].length > 1) return { kind: 'word', text: [...token].slice(0, 1 + Math.floor(rand() * ([...token].length - 1))).join(''), prefix: true };
    return { kind: 'word', text: token, prefix: false };
  });
}

const render = (terms: OracleTerm[]) => terms.map((t) => (t.kind === 'phrase' ? `"${t.words.map((w, i) => `${i > 0 ? t.gaps[i - 1] : ''}${w}`).join('')}"` : `${t.text}${t.prefix ? '*' : ''}`)).join(' ');

it('answers as a brute-force scan of every version does', async () => {
  const tally = { present: 0, deleted: 0, gone: 0, none: 0, phrase: 0, several: 0 };
  await fc.assert(fc.asyncProperty(fc.integer({ min: 1, max: 2 ** 31 - 1 }), async (seed) => {
    const { ledger, cleanup } = tempLedger();
    try {
      const agents = await generate(ledger, seed);
      const rand = prng(seed ^ 0x5eed);
      for (let i = 0; i < 25; i++) {
        const terms = randomQuery(rand, agents.flatMap((a) => a.history.states.flat().map((r) => r.content)));
        const q = render(terms);
        const scoped = rand() < 0.3 ? agents[0]!.history.agentId : undefined;
        const want = oracle(scoped ? agents.slice(0, 1) : agents, terms);
        const got = searchHistory({ db: ledger.db, q, limit: 500, ...(scoped ? { agentId: scoped } : {}) });
        const seen = [got.first, ...got.appearances].filter((a) => a !== null).map((a) => ({
          agent_id: a.agent_id, record_id: a.record_id, sequence: a.sequence, synced_at: a.synced_at,
          op: a.op === 'move' ? 'create' : a.op, // a moved memory's first version: 'create' before the moves index, 'move' after
        }));
        expect(seen, `${q} (seed ${seed})`).toEqual(want.appearances);
        expect(got.total, q).toBe(want.appearances.length);
        expect(got.statuses, `${q} (seed ${seed})`).toEqual(want.statuses);
        const { agent_id: _, ...firstStatus } = want.statuses[0] ?? { agent_id: '', present: false, last_seen_sequence: null, gone_at_sequence: null, deleted: false };
        expect(got.status, q).toEqual(firstStatus);
        for (const st of want.statuses) tally[st.present ? 'present' : st.deleted ? 'deleted' : 'gone']++;
        if (want.appearances.length === 0) tally.none++;
        if (terms.some((t) => t.kind === 'phrase') && want.appearances.length > 0) tally.phrase++;
        if (terms.length > 1 && want.appearances.length > 0) tally.several++;
      }
    } finally {
      cleanup();
    }
  }), { numRuns: 40 });
  // The generated queries reach every answer, not only "never appeared".
  for (const [kind, n] of Object.entries(tally)) expect(n, kind).toBeGreaterThan(5);
}, 240_000);
