/**
 * A server on the scale-out storage whose database statement for an upload runs past its
 * LINEAGE_DATABASE_READ_SECONDS answers 504 `database_timeout` (no Retry-After: a retry would take as
 * long). The sync said it as any refusal, with no hint (a registration's or a restore's hint sent the
 * user to the server's log or to --at-sequence); now the hint says the server gave up on a slow request,
 * kept nothing, and what would help. Real PostgreSQL 15 + radosgw; the slow statement is an INSERT into
 * ledger_entries that a trigger makes sleep, as a slow disk would.
 */
import path from 'node:path';
import pg from 'pg';
import { afterEach, expect, it } from 'vitest';
import { createLineageServer } from '@/lib/server/http-server';
import { openStorage, storageConfigFrom } from '@/lib/storage/config';
import { freshBucket, freshDatabase, scaleOutEnv } from '@/tests/engines/use-engines';
import { tempDataDir } from '@/tests/server/harness';
import { SyncError } from './errors';
import { httpTarget } from './http-target';
import { syncWorkspace } from './sync';
import { makeSandbox, steppingClock } from './testing/workspace';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const fn of cleanups.splice(0).reverse()) await fn();
});

it('a 504 database_timeout to an upload: said with a hint naming the server\'s limit, nothing stored; the same sync goes through once the statement is fast', async () => {
  const [url, { bucket, settings }] = await Promise.all([freshDatabase(), freshBucket()]);
  const storage = await openStorage(storageConfigFrom(scaleOutEnv(url, bucket, settings, { LINEAGE_DATABASE_READ_SECONDS: '1' })));
  const server = await createLineageServer({ dataDir: tempDataDir(), storage, port: 0, ui: false, log: () => undefined });
  cleanups.push(() => server.close());
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  cleanups.push(() => admin.end());
  const { key } = await storage.createApiKey({ name: 't', now: new Date() });
  const sb = await makeSandbox();
  cleanups.push(sb.cleanup);
  const clock = steppingClock();
  const sync = () => syncWorkspace({ runtime: 'openclaw', workspace: sb.workspace, target: httpTarget({ baseUrl: server.url, apiKey: key }), alfHome: path.join(sb.alfHome, '.alf'), clock });
  await sb.write('MEMORY.md', '# Memory\n\n## Owner\nDana owns billing.\n');
  expect(await sync()).toMatchObject({ sequence: 0 });
  await sb.write('memory/2026-11-02.md', '## Standup\nshipped\n');

  await admin.query(`CREATE FUNCTION slow_entry() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN PERFORM pg_sleep(30); RETURN NEW; END $$;
    CREATE TRIGGER slow BEFORE INSERT ON ledger_entries FOR EACH ROW EXECUTE FUNCTION slow_entry()`);
  const error = await sync().then(() => null, (e: unknown) => e);
  await admin.query('DROP TRIGGER slow ON ledger_entries; DROP FUNCTION slow_entry()');
  expect(error).toBeInstanceOf(SyncError);
  expect(error).toMatchObject({
    code: 'sync_upload_failed',
    message: expect.stringMatching(/^upload delta failed \(HTTP 504\): a database statement of this request ran past its time limit \(LINEAGE_DATABASE_READ_SECONDS\)/),
    retryAfterSeconds: undefined,
    hint: expect.stringMatching(/^the server gave up on this request as too slow.*LINEAGE_DATABASE_READ_SECONDS/),
  });
  expect((await admin.query<{ seq: number }>('SELECT seq FROM ledger_entries ORDER BY seq')).rows.map((r) => r.seq)).toEqual([0]);

  expect(await sync()).toMatchObject({ sequence: 1 });
}, 180_000);
