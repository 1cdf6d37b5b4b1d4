/**
 * One racer of pg-append-race.test.ts, in its own Node process with its own connection: on each
 * `{ round }` message it appends a delta based on `round` and reports what happened. Not a test.
 */
import { openPgDatabase } from '@/db/pg/client';
import { isLedgerError } from './errors';
import { appendLedgerEntry } from './pg-append';

const url = process.env.RACE_DATABASE_URL;
const agentId = process.env.RACE_AGENT_ID;
const worker = process.env.RACE_WORKER;
if (!url || !agentId || !worker || !process.send) throw new Error('run by pg-append-race.test.ts only');

const db = await openPgDatabase(url, { max: 1 });
await db.pool.query('SELECT 1');
process.send({ ready: true });

process.on('message', (message: { round?: number; done?: boolean }) => {
  if (message.done) {
    void db.close().then(() => process.exit(0));
    return;
  }
  const round = message.round as number;
  const tag = `w${worker}-r${round}`;
  appendLedgerEntry({
    db, agentId, kind: 'delta', baseSequence: round,
    entry: { id: `${agentId}-${tag}`, blobKey: `${agentId}/${round + 1}-${tag}.alf-delta`, sha256: tag.padEnd(64, '0'), sizeBytes: 1, createdAt: new Date().toISOString(), manifestCreatedAt: null },
  }).then(
    (row) => process.send?.({ round, won: true, seq: row.seq }),
    (error: unknown) => process.send?.(isLedgerError(error)
      ? { round, won: false, code: error.code, latest: error.latest }
      : { round, won: false, code: 'unexpected', message: String(error) }),
  );
});
