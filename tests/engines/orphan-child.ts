/** Started by watchdog.test.ts: starts a PostgreSQL, prints where, then waits to be killed. Not a test. */
import { startPostgres } from './postgres';

const pg = await startPostgres();
process.stdout.write(`${JSON.stringify({ url: pg.url, dir: pg.dir })}\n`);
setInterval(() => undefined, 60_000);
