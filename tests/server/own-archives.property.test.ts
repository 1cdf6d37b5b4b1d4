import fs from 'node:fs/promises';
import path from 'node:path';
import Database from 'better-sqlite3';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { insert, seedStateDb } from '@/lib/adapters/hermes/test-support';
import { seedBrainDb } from '@/lib/adapters/zeroclaw/test-support';
import { readZip, resolveLimits } from '@/lib/core/archive/zip-read';
import { validateArchive } from '@/lib/core/validate';
import { createLineageServer, type LineageServer } from '@/lib/server/http-server';
import { openStorage, storageConfigFrom } from '@/lib/storage/config';
import { openEmbeddedStorage } from '@/lib/storage/embedded';
import { uploadsFrom, uploadsOf } from '@/lib/storage/testing/synced-histories';
import { httpTarget } from '@/lib/sync/http-target';
import { localTarget } from '@/lib/sync/local-target';
import { syncWorkspace } from '@/lib/sync/sync';
import { apply, materialize, op as mdOp, render, seedModel, type Model, type Op as MdOp } from '@/lib/sync/testing/histories';
import { makeSandbox, steppingClock } from '@/lib/sync/testing/workspace';
import { freshBucket, freshDatabase, scaleOutEnv } from '@/tests/engines/use-engines';
import { startTestServer, tempDataDir, type TestServer } from './harness';

/**
 * Our own client never writes an archive our server or the reference reader's rules refuse.
 *
 * A local first sync's snapshot is checked once as it is built (lib/ledger/record-checks.ts), not
 * read back from its bytes; only an upload over HTTP or `lineage validate` reads them. So random
 * histories of each runtime (records added, edited, moved, deleted; identity and principal prose
 * written, edited, removed; HTML, non-ASCII and JSON-looking text; markdown files of odd names and
 * shapes; ZeroClaw rows with odd times, keys and embeddings; Hermes tool messages and sessions with
 * odd times, BLOBs and JSON-looking columns) are synced to a real served
 * ingest, which reads every snapshot and delta from its bytes and refuses (400) anything its
 * byte-level checks refuse (duplicated keys, wrong-typed record or layer fields, bad skipped lines,
 * NUL, depth, times); then every stored entry's bytes are validated as `lineage validate` does.
 * The served ingest is the embedded one (SQLite) in every run and, in the first runs of each
 * runtime, the scale-out one too (PostgreSQL + radosgw, lib/storage/pg/ingest.ts).
 *
 * Most histories lose the client's state part-way (another machine, or a lost ALF_HOME) and go on
 * with `--force-first-sync`: a full snapshot of the changed workspace after deltas — the only way
 * our client sends a snapshot to a target that has history (lib/sync/sync.ts has no size or count
 * rollover) — then deltas on that base.
 *
 * No adapter writes a `credentials.json` or `attachments.json` layer (lib/adapters/*: ExportResult
 * `layers` holds identity and principals only; OpenClaw and Hermes make them from prose files,
 * ZeroClaw makes none), so no history can make our client write one: these are not covered here.
 */

const word = fc.constantFrom(
  'alpha', '<b>bold</b> &amp; <script>alert(1)</script>', '<img src=x onerror=alert(1)>', 'ünïcödé', 'straße', 'Ωμέγα', '日本語のメモ',
  'emoji 🚀🌍', 'Cafe\u0301', '"quoted"', 'back\\slash', '{"version":1,"version":7}', 'tab\there', 'line\u2028sep', '§', '## not a heading',
  'host 10.0.4.17', 'null', '1e400',
);
const text = fc.array(word, { minLength: 1, maxLength: 4 }).map((w) => w.join(' '));

/** Root prose files our adapters turn into the identity and principals layers (OpenClaw, ZeroClaw). */
const PROSE_FILES = ['SOUL.md', 'IDENTITY.md', 'AGENTS.md', 'USER.md', 'TOOLS.md', 'HEARTBEAT.md'] as const;
const prose = fc.record({ kind: fc.constant('prose' as const), file: fc.constantFrom(...PROSE_FILES), text: fc.option(text, { nil: null }) });
type Prose = typeof prose extends fc.Arbitrary<infer T> ? T : never;

/** Markdown files of odd names and shapes (front matter, empty headings, HTML, CRLF only), written as they are. */
const ODD_FILES = ['memory/ünï code.md', 'memory/<b>x</b>.md', 'memory/a&b.md', 'memory/2026-13-45.md', 'memory/deep/er/é.md', 'memory/🚀.md', 'notes/x.md'] as const;
const oddFile = fc.record({
  kind: fc.constant('odd' as const),
  file: fc.constantFrom(...ODD_FILES),
  text: fc.option(fc.constantFrom(
    '---\ntags: [a, a]\ntitle: "x"\n---\n# H\n\n## S\nbody', '#tags: a,a, ,#b\n## x\ny', '## \n\n## ##\n###### deep\ntext', '',
    '\r\n\r\n', '<html><body>## hi</body></html>', '# T\n#tags: \n\n## a\n{"a":1,"a":2}',
  ), { nil: null }),
});
type OddFile = typeof oddFile extends fc.Arbitrary<infer T> ? T : never;

async function writeProse(ws: string, o: Prose | OddFile): Promise<void> {
  const file = path.join(ws, o.file);
  if (o.text === null) return void (await fs.rm(file, { force: true }));
  await fs.mkdir(path.dirname(file), { recursive: true });
  await fs.writeFile(file, o.kind === 'odd' ? o.text : o.file === 'IDENTITY.md' ? `# Identity\n\n- **Name:** ${o.text}\n` : `# ${o.file}\n\n${o.text}\n`);
}

interface RuntimeCase<O> {
  runtime: 'openclaw' | 'zeroclaw' | 'hermes';
  runtimeAgent?: string;
  ops: fc.Arbitrary<O>;
  numRuns: number;
  /** How many of the first runs also sync to the scale-out server (each costs a few seconds there). */
  scaleOutRuns: number;
  /** Parts of archives the histories must have produced (and so checked). */
  covers: string[];
  seed(ws: string): Promise<unknown>;
  apply(ws: string, o: O, step: number, state: unknown): Promise<void>;
}

const openclaw: RuntimeCase<MdOp | Prose | OddFile> = {
  runtime: 'openclaw',
  ops: fc.oneof(
    { arbitrary: mdOp as fc.Arbitrary<MdOp>, weight: 4 },
    { arbitrary: fc.record({ kind: fc.constant('insert' as const), file: fc.constantFrom('MEMORY.md', 'memory/notes.md'), at: fc.nat(5), heading: text, body: text }), weight: 2 },
    { arbitrary: fc.record({ kind: fc.constant('edit' as const), file: fc.constantFrom('MEMORY.md', 'memory/notes.md'), at: fc.nat(5), body: text }), weight: 1 },
    { arbitrary: prose, weight: 3 },
    { arbitrary: oddFile, weight: 2 },
  ),
  numRuns: 8,
  scaleOutRuns: 8,
  covers: ['snapshot identity.json', 'snapshot principals.json', 'snapshot memory/', 'snapshot raw/', 'delta identity.json', 'delta principals.json', 'delta memory/delta.jsonl', 'delta raw/'],
  async seed(ws) {
    const model: Model = seedModel();
    await materialize(ws, render(model));
    await writeProse(ws, { kind: 'prose', file: 'SOUL.md', text: 'Be <em>brief</em> — ünïcödé' });
    await writeProse(ws, { kind: 'prose', file: 'USER.md', text: 'Name: Dana 🚀' });
    return model;
  },
  async apply(ws, o, _step, state) {
    if (o.kind === 'prose' || o.kind === 'odd') return writeProse(ws, o);
    const model = state as Model;
    apply(model, o);
    // materialize() removes what the model does not hold: the prose and odd files are put back after it.
    const kept = new Map<string, Buffer>();
    for (const f of [...PROSE_FILES, ...ODD_FILES]) {
      const bytes = await fs.readFile(path.join(ws, f)).catch(() => null);
      if (bytes) kept.set(f, bytes);
    }
    await materialize(ws, new Map([...render(model), ...kept]));
  },
};

const ZC_AGENT = 'aaaaaaaa-0000-4000-8000-00000000000a';
const ZC_OTHER = 'aaaaaaaa-0000-4000-8000-00000000000b';
type RowOp = { kind: 'insert' | 'update' | 'delete' | 'category' | 'column'; n: number; text: string };
const rowOp = fc.record({ kind: fc.constantFrom<RowOp['kind']>('insert', 'update', 'delete', 'category', 'column'), n: fc.nat(7), text });
/** Times as ZeroClaw rows may hold them: other offsets, a space, beyond nanoseconds, a leap second, none at all. */
const ZC_TIMES = ['2026-06-01 10:00:00', '2026-06-01T10:00:00+02:00', 'not a date', '', '2026-06-01T10:00:00.123456789123Z', '9999-12-31T23:59:60Z', '0000-01-01T00:00:00Z', '2026-02-31T00:00:00Z'];

const zeroclaw: RuntimeCase<RowOp | Prose> = {
  runtime: 'zeroclaw',
  runtimeAgent: 'scout',
  ops: fc.oneof({ arbitrary: rowOp, weight: 4 }, { arbitrary: prose, weight: 1 }),
  numRuns: 5,
  scaleOutRuns: 3,
  // ZeroClaw has no identity or principals layer: its prose files travel as raw files.
  covers: ['snapshot memory/', 'snapshot raw/', 'delta memory/delta.jsonl', 'delta raw/'],
  async seed(ws) {
    await seedBrainDb({
      workspace: ws,
      agents: [{ id: ZC_AGENT, alias: 'scout', created_at: '2026-05-01T00:00:00Z' }, { id: ZC_OTHER, alias: 'other', created_at: '2026-05-01T00:00:00Z' }],
      rows: [0, 1, 2].map((k) => ({
        id: `10000000-0000-4000-8000-00000000000${k}`, key: `k${k}`, content: `fact ${k} <i>ü</i>`, agent_id: k === 2 ? ZC_OTHER : ZC_AGENT,
        created_at: `2026-05-0${k + 1}T10:00:00Z`, updated_at: `2026-05-0${k + 1}T10:00:00Z`,
      })),
    });
    await writeProse(ws, { kind: 'prose', file: 'SOUL.md', text: 'Calm & <strong>precise</strong>' });
    await writeProse(ws, { kind: 'prose', file: 'USER.md', text: 'Name: Jürgen' });
  },
  async apply(ws, o, step) {
    if (o.kind === 'prose') return writeProse(ws, o);
    const db = new Database(path.join(ws, 'memory/brain.db'));
    try {
      const nth = 'rowid = (SELECT rowid FROM memories ORDER BY id LIMIT 1 OFFSET ?)';
      if (o.kind === 'insert') {
        db.prepare("INSERT INTO memories (id, key, content, category, created_at, updated_at, agent_id) VALUES (?, ?, ?, 'core', '2026-06-01T10:00:00Z', '2026-06-01T10:00:00Z', ?)")
          .run(`20000000-0000-4000-8000-${String(step).padStart(12, '0')}`, `s${step} ${o.text}`, o.text, o.n % 4 === 0 ? ZC_OTHER : ZC_AGENT);
      }
      if (o.kind === 'update') db.prepare(`UPDATE memories SET content = ?, updated_at = '2026-07-01T10:00:00Z' WHERE ${nth}`).run(o.text, o.n % 3);
      if (o.kind === 'category') db.prepare(`UPDATE memories SET category = ? WHERE ${nth}`).run(['daily', 'conversation', o.text][o.n % 3], o.n % 3);
      if (o.kind === 'delete') db.prepare(`DELETE FROM memories WHERE ${nth}`).run(o.n % 3);
      if (o.kind === 'column') {
        // One column of a row set to an odd value: times, a session, an embedding of odd bytes, the key.
        const column = (['created_at', 'updated_at', 'session_id', 'embedding', 'key'] as const)[step % 5]!;
        const value = column === 'embedding' ? (o.n % 2 ? Buffer.from([1, 2, 3]) : Buffer.from(new Float32Array([0.5, -1, Number.NaN]).buffer))
          : column.endsWith('_at') ? ZC_TIMES[o.n % ZC_TIMES.length] : `${o.text} ${step}`;
        db.prepare(`UPDATE memories SET ${column} = ? WHERE ${nth}`).run(value, o.n % 3);
      }
    } finally {
      db.close();
    }
  },
};

type HermesOp =
  | { kind: 'session' | 'message' | 'unmessage' | 'tool' | 'odd-session'; n: number; text: string }
  | { kind: 'memory' | 'user' | 'soul'; text: string | null };
const hermesOp: fc.Arbitrary<HermesOp> = fc.oneof(
  fc.record({ kind: fc.constantFrom('session' as const, 'message' as const, 'unmessage' as const, 'tool' as const, 'odd-session' as const), n: fc.nat(7), text }),
  fc.record({ kind: fc.constantFrom('memory' as const, 'user' as const, 'soul' as const), text: fc.option(text, { nil: null }) }),
);

/** Unix seconds as rows may hold them: fractions, 0, negative, past year 9999, tiny. */
const oddSeconds = (n: number) => [1780000020.123456789, 0, -5, 1e13, 253402300799.999, 1780000030, 0.5, 1e-7][n % 8]!;

const hermes: RuntimeCase<HermesOp> = {
  runtime: 'hermes',
  ops: hermesOp,
  numRuns: 5,
  scaleOutRuns: 3,
  covers: ['snapshot identity.json', 'snapshot principals.json', 'snapshot memory/', 'snapshot raw/', 'delta identity.json', 'delta principals.json', 'delta memory/delta.jsonl', 'delta raw/'],
  async seed(ws) {
    await seedStateDb(ws, [{ id: 'sess-1', source: 'cli', title: 'Deploy <review>', started_at: 1780000000, ended_at: 1780000600 }], [
      { session_id: 'sess-1', role: 'user', content: 'Review the déploy 🚀', timestamp: 1780000010 },
    ]);
    await fs.mkdir(path.join(ws, 'memories'), { recursive: true });
    await fs.writeFile(path.join(ws, 'memories/MEMORY.md'), 'Always run tests first.\n§\n<b>Never</b> on Fridays.\n');
    await fs.writeFile(path.join(ws, 'memories/USER.md'), 'Name: Dana\n');
    await fs.writeFile(path.join(ws, 'SOUL.md'), 'Be brief.\n');
  },
  async apply(ws, o, step) {
    if (o.kind === 'memory' || o.kind === 'user' || o.kind === 'soul') {
      const file = path.join(ws, { memory: 'memories/MEMORY.md', user: 'memories/USER.md', soul: 'SOUL.md' }[o.kind]);
      if (o.text === null) return void (await fs.rm(file, { force: true }));
      const before = o.kind === 'memory' ? (await fs.readFile(file, 'utf8').catch(() => '')) : '';
      return void (await fs.writeFile(file, before ? `${before}§\n${o.text}\n` : `${o.text}\n`));
    }
    const db = new Database(path.join(ws, 'state.db'));
    try {
      if (o.kind === 'session') {
        insert(db, 'sessions', { id: `sess-${step + 10}`, source: ['cli', 'telegram', 'discord'][o.n % 3], title: `${o.text} ${step}`, started_at: 1780001000 + step, ended_at: 1780001500 + step });
        insert(db, 'messages', { session_id: `sess-${step + 10}`, role: 'user', content: o.text, timestamp: 1780001010 + step });
      }
      if (o.kind === 'message') insert(db, 'messages', { session_id: 'sess-1', role: o.n % 2 ? 'assistant' : 'user', content: o.text, timestamp: 1780000020 + step });
      if (o.kind === 'tool') {
        const at = oddSeconds(o.n);
        insert(db, 'messages', {
          session_id: 'sess-1', role: ['tool', 'system', 'assistant'][o.n % 3], content: o.n % 2 ? null : o.text, tool_name: o.text, reasoning: o.text,
          tool_calls: `[{"id":"a","id":"b","x":${JSON.stringify(o.text)}}]`, timestamp: at, token_count: 2 ** 60,
        });
      }
      if (o.kind === 'odd-session') {
        const at = oddSeconds(o.n);
        insert(db, 'sessions', {
          id: `odd-${step} ${o.text}`, source: o.text, title: o.n % 2 ? null : `${o.text} ${step}`, model_config: '{"a":1,"a":2}', user_id: Buffer.from([0, 1, 255]),
          started_at: at, ended_at: o.n % 3 ? null : at - 100, estimated_cost_usd: 1e308, parent_session_id: 'sess-1',
        });
      }
      if (o.kind === 'unmessage') db.prepare('DELETE FROM messages WHERE id = (SELECT MAX(id) FROM messages)').run();
    } finally {
      db.close();
    }
  },
};

let t: TestServer;
/** A served ingest on the scale-out storage: PostgreSQL and a radosgw bucket of the run's engines (tests/engines). */
let scaleOut: { server: LineageServer; url: string; key: string };
beforeAll(async () => {
  t = await startTestServer();
  const [databaseUrl, { bucket, settings }] = await Promise.all([freshDatabase(), freshBucket()]);
  const storage = await openStorage(storageConfigFrom(scaleOutEnv(databaseUrl, bucket, settings)));
  const key = (await storage.createApiKey({ name: 'own-archives', now: new Date() })).key;
  const server = await createLineageServer({ dataDir: tempDataDir(), storage, port: 0, ui: false, log: () => undefined });
  scaleOut = { server, url: server.url, key };
}, 300_000);
afterAll(async () => {
  await scaleOut?.server.close();
  await t?.close();
});

const CASES = [openclaw, zeroclaw, hermes] as RuntimeCase<unknown>[];
type Leg = 'http' | 'scale-out' | 'local';

/**
 * The same history synced over HTTP (the served ingest reads every upload from its bytes; a refusal
 * is the sync's error) — to the embedded server and, in the first runs, to the scale-out one — and
 * into a local data directory (where a first sync's snapshot is checked once as it is built, not
 * read back). Before the sync after step `lost` the client's state is gone (a fresh ALF_HOME) and
 * that sync is a `--force-first-sync`: a full snapshot where the target has history. Every side's
 * entries are then taken from its ledger as bytes: the local ones are ingested from those bytes into
 * a fresh storage (the checks an upload gets), and every one of all is validated.
 */
describe.each(CASES.map((c) => [c.runtime, c] as const))('%s: every archive our sync writes is taken by an ingest from its bytes and valid', (_name, rc) => {
  it('random histories with identity/principal prose, edits, moves, deletes, HTML and non-ASCII text, a lost state\'s full snapshot; embedded and scale-out', async () => {
    // What the checked archives held, by leg and kind: `http snapshot identity.json`,
    // `scale-out delta memory/delta.jsonl`, `local rollover raw/` (a snapshot after the first entry)...
    const seen = new Set<string>();
    let entries = 0;
    let run = 0;
    const freshDir = tempDataDir();
    const fresh = openEmbeddedStorage(freshDir);
    try {
      await fc.assert(
        fc.asyncProperty(fc.array(rc.ops, { minLength: 1, maxLength: 6 }), fc.option(fc.nat(5), { nil: null, freq: 4 }), async (ops, lost) => {
          const legs: Leg[] = run++ < rc.scaleOutRuns ? ['scale-out', 'http', 'local'] : ['http', 'local'];
          for (const leg of legs) {
            const sb = await makeSandbox(`lineage-own-${rc.runtime}-${leg}-`);
            try {
              const clock = steppingClock();
              const target = leg === 'http' ? httpTarget({ baseUrl: `${t.url}/v1`, apiKey: t.keyA })
                : leg === 'scale-out' ? httpTarget({ baseUrl: `${scaleOut.url}/v1`, apiKey: scaleOut.key })
                : localTarget(sb.dataDir, clock);
              const state = await rc.seed(sb.workspace);
              let alfHome = sb.alfHome;
              // A refusal says on which side it came: an ingest's 400 is the sync's error.
              const sync = (forceFirstSync = false) => syncWorkspace({ runtime: rc.runtime, workspace: sb.workspace, runtimeAgent: rc.runtimeAgent, target, alfHome, clock, forceFirstSync })
                .catch((error: unknown) => {
                  throw new Error(`${leg}${forceFirstSync ? ' (--force-first-sync)' : ''}: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
                });
              const agentId = (await sync()).agent.alf_agent_id;
              for (let step = 0; step < ops.length; step++) {
                await rc.apply(sb.workspace, ops[step], step, state);
                const rollover = lost !== null && step === lost % ops.length;
                if (rollover) alfHome = path.join(sb.root, `alf-home-after-${step}`);
                const out = await sync(rollover);
                if (rollover) expect({ step, delta: out.delta, agent: out.agent.alf_agent_id }).toEqual({ step, delta: false, agent: agentId });
              }
              const storage = leg === 'http' ? t.server.service.storage : leg === 'scale-out' ? scaleOut.server.service.storage : null;
              const history = storage ? await uploadsFrom(storage, agentId) : await uploadsOf(sb.dataDir, agentId);
              expect(history.uploads[0]?.kind).toBe('snapshot');
              expect(history.uploads.filter((u) => u.kind === 'snapshot').length).toBe(lost === null ? 1 : 2);
              if (leg === 'local') {
                await fresh.registerAgent({ id: agentId, name: history.name, sourceRuntime: history.runtime, tenantId: null, now: history.uploads[0]!.now });
              }
              for (const [seq, u] of history.uploads.entries()) {
                if (leg === 'local') {
                  if (u.kind === 'snapshot') await fresh.ingestSnapshot({ agentId, bytes: u.bytes, now: u.now });
                  else await fresh.ingestDelta({ agentId, baseSequence: u.baseSequence, bytes: u.bytes, now: u.now });
                }
                const verdict = await validateArchive(u.bytes);
                expect({ leg, seq, kind: u.kind, errors: verdict.errors }).toEqual({ leg, seq, kind: u.kind, errors: [] });
                expect(verdict.valid).toBe(true);
                const kind = u.kind === 'snapshot' && seq > 0 ? 'rollover' : u.kind;
                for (const name of (await readZip(u.bytes, resolveLimits())).files.keys()) {
                  seen.add(`${leg} ${kind} ${name.startsWith('raw/') ? 'raw/' : name.startsWith('memory/') && u.kind === 'snapshot' ? 'memory/' : name}`);
                }
              }
              entries += history.uploads.length;
            } finally {
              await sb.cleanup();
            }
          }
        }),
        { numRuns: rc.numRuns, seed: 20261207, endOnFailure: true },
      );
    } finally {
      await fresh.close();
      await fs.rm(freshDir, { recursive: true, force: true });
    }
    // The histories changed things: deltas with records, raw files and layer documents were written
    // and checked, not only first snapshots; full snapshots after deltas too; on every leg.
    expect(entries).toBeGreaterThan(2 * rc.numRuns);
    const rolloverCovers = rc.covers.filter((c) => c.startsWith('snapshot ')).map((c) => c.replace('snapshot ', 'rollover '));
    const covers = (['http', 'scale-out', 'local'] as const).flatMap((leg) => [...rc.covers, ...rolloverCovers].map((c) => `${leg} ${c}`));
    expect(covers.filter((c) => !seen.has(c))).toEqual([]);
  }, 600_000);
});
