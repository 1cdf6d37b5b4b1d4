/**
 * Queries through the per-connection statement cache answer what drizzle's one-time statements
 * answer: each SQL text keeps its own statement and binds this call's values, on each connection,
 * and past the bound (the cache starts again) nothing mixes up.
 */
import { sql } from 'drizzle-orm';
import { afterAll, describe, expect, it } from 'vitest';
import { tempLedger } from '../testing/temp-ledger';
import { allRows, firstRow } from './prepared';

const made = [tempLedger(), tempLedger()];
afterAll(() => made.forEach((m) => m.cleanup()));

describe('statements prepared once per connection', () => {
  it('answer as drizzle does, for every shape and value, on two connections, past the bound', () => {
    const [a, b] = made.map((m) => m.ledger.db.db);
    a!.run(sql`CREATE TABLE t (n INTEGER, s TEXT)`);
    b!.run(sql`CREATE TABLE t (n INTEGER, s TEXT)`);
    for (let n = 0; n < 40; n++) {
      a!.run(sql`INSERT INTO t VALUES (${n}, ${`a${n}`})`);
      b!.run(sql`INSERT INTO t VALUES (${n * 2}, ${`b${n}`})`);
    }
    // 300 shapes (over the 256 kept), each asked twice with different values, alternating connections.
    for (let round = 0; round < 2; round++) {
      for (let shape = 0; shape < 300; shape++) {
        for (const db of [a!, b!]) {
          const limit = 1 + ((shape + round) % 5);
          const query = sql`SELECT n, s, ${shape} AS shape FROM t WHERE n >= ${shape % 30 + round} ORDER BY n ${sql.raw(shape % 2 ? 'DESC' : 'ASC')} LIMIT ${limit} /* ${sql.raw(String(shape))} */`;
          expect(allRows(db, query)).toEqual(db.all(query));
          expect(firstRow(db, query)).toEqual(db.get(query));
        }
      }
    }
    expect(firstRow(a!, sql`SELECT n FROM t WHERE n = ${-1}`)).toBeUndefined();
  });
});
