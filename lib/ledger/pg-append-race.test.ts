/**
 * The cross-process race on PostgreSQL: several Node processes, each with its own connection,
 * append a delta on the same base at the same moment, round after round. Exactly one wins each
 * round; every loser gets stale_sequence with the winner's sequence.
 */
import { fork, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openPgDatabase, type PgLineageDb } from '@/db/pg/client';
import { agents, ledger_entries } from '@/db/pg/schema';
import { freshDatabase, usePostgres } from '@/tests/engines/use-engines';
import { appendLedgerEntry } from './pg-append';
import { eq } from 'drizzle-orm';

const PROCESSES = 4;
const ROUNDS = 60;
const AGENT = '00000000-0000-4000-8000-00000000race';

interface Outcome { round: number; won: boolean; seq?: number; code?: string; latest?: number | null; message?: string }

let db: PgLineageDb;
let url: string;
const children: ChildProcess[] = [];

function nextMessage<T>(child: ChildProcess): Promise<T> {
  return new Promise((resolve, reject) => {
    const onExit = (code: number | null) => reject(new Error(`racer exited (${code}) before answering`));
    child.once('exit', onExit);
    child.once('message', (message) => {
      child.off('exit', onExit);
      resolve(message as T);
    });
  });
}

beforeAll(async () => {
  await usePostgres();
  url = await freshDatabase();
  db = await openPgDatabase(url);
  await db.db.insert(agents).values({ id: AGENT, tenant_id: null, name: 'racer', source_runtime: null, created_at: '2026-01-01T00:00:00.000Z' });
  await appendLedgerEntry({
    db, agentId: AGENT, kind: 'snapshot', sequence: 0,
    entry: { id: 'race-s0', blobKey: `${AGENT}/0-s.alf`, sha256: 's'.repeat(64), sizeBytes: 1, createdAt: '2026-01-01T00:00:00.000Z', manifestCreatedAt: null },
  });
  for (let worker = 0; worker < PROCESSES; worker++) {
    const child = fork(path.join(__dirname, 'pg-append-race-child.ts'), [], {
      execArgv: ['--import', 'tsx'],
      env: { ...process.env, RACE_DATABASE_URL: url, RACE_AGENT_ID: AGENT, RACE_WORKER: String(worker) },
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    children.push(child);
  }
  await Promise.all(children.map((child) => nextMessage(child)));
});

afterAll(async () => {
  await Promise.all(children.map((child) => new Promise<void>((resolve) => {
    if (child.exitCode !== null) return resolve();
    child.once('exit', () => resolve());
    child.send({ done: true });
  })));
  await db?.close();
});

describe('appendLedgerEntry across processes', () => {
  it(`${PROCESSES} processes × ${ROUNDS} rounds on one base each: exactly one winner per round, the losers see its sequence`, async () => {
    const winners: number[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      const answers = children.map((child) => nextMessage<Outcome>(child));
      for (const child of children) child.send({ round });
      const outcomes = await Promise.all(answers);
      const won = outcomes.filter((outcome) => outcome.won);
      expect(won, `round ${round}: ${JSON.stringify(outcomes)}`).toHaveLength(1);
      expect(won[0]?.seq).toBe(round + 1);
      for (const lost of outcomes.filter((outcome) => !outcome.won)) {
        expect(lost, `round ${round}`).toMatchObject({ round, code: 'stale_sequence', latest: round + 1 });
      }
      winners.push(outcomes.findIndex((outcome) => outcome.won));
    }
    const rows = await db.db.select({ seq: ledger_entries.seq }).from(ledger_entries).where(eq(ledger_entries.agent_id, AGENT));
    expect(rows.map((row) => row.seq).sort((a, b) => a - b)).toEqual(Array.from({ length: ROUNDS + 1 }, (_, i) => i));
    const [agent] = await db.db.select().from(agents).where(eq(agents.id, AGENT));
    expect(agent?.latest_sequence).toBe(ROUNDS);
    // Not asserted (scheduling decides), but worth seeing that the race was real: more than one process won rounds.
    console.log(`race winners by process: ${JSON.stringify(Array.from({ length: PROCESSES }, (_, w) => winners.filter((x) => x === w).length))}`);
  });
});
