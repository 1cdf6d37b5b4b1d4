/**
 * PostgreSQL that accepted the connection and then stops answering mid-query (a hung server, a
 * proxy whose backend died, a partition): before, the statement waited for ever (measured: still
 * waiting after 20 s, no limit of any kind), holding its request and a pooled connection. Now a
 * statement unanswered a little past `LINEAGE_DATABASE_READ_SECONDS` (the server's own
 * statement_timeout, whose cancel never came: lock-wait.test.ts) fails as `busy` (a 503 with
 * Retry-After) and its connection is dropped, so neither the transaction's ROLLBACK nor the next request queues
 * behind it. The peer here is a real one gone silent: a TCP proxy to the run's PostgreSQL that
 * stops passing bytes while keeping both sockets open. A host that is gone altogether is found by
 * the kernel: every connection has TCP keepalive on (seen in the kernel's socket table).
 */
import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { unreachableStorageError } from '@/lib/ledger/unreachable-storage';
import { createLineageServer } from '@/lib/server/http-server';
import { openStorage, storageConfigFrom } from '@/lib/storage/config';
import { inTransaction } from '@/lib/storage/pg/sql';
import { freshBucket, freshDatabase, scaleOutEnv } from '@/tests/engines/use-engines';
import { call, tempDataDir } from '@/tests/server/harness';
import { openPgDatabase } from './client';
import { isReadTimeout } from './connect-timeout';

interface SilentProxy { url: string; freeze(): void; thaw(): void; close(): Promise<void> }

/** A TCP proxy to `target` that, frozen, passes no byte either way (bytes sent meanwhile are lost). */
async function silentProxy(target: string): Promise<SilentProxy> {
  const real = new URL(target);
  let frozen = false;
  const sockets = new Set<net.Socket>();
  const server = net.createServer((client) => {
    const upstream = net.connect(Number(real.port), real.hostname);
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on('error', () => undefined);
      socket.on('close', () => {
        client.destroy();
        upstream.destroy();
      });
    }
    client.on('data', (bytes) => frozen || upstream.write(bytes));
    upstream.on('data', (bytes) => frozen || client.write(bytes));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = new URL(target);
  url.port = String((server.address() as net.AddressInfo).port);
  return {
    url: url.toString(),
    freeze: () => { frozen = true; },
    thaw: () => { frozen = false; },
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

let proxy: SilentProxy;
beforeAll(async () => {
  proxy = await silentProxy(await freshDatabase());
});
afterAll(async () => {
  await proxy?.close();
});

describe('a statement the database stops answering', () => {
  it('fails once the read limit has passed, as busy; its connection is dropped and the pool answers the next query', async () => {
    const db = await openPgDatabase(proxy.url, { max: 2, readTimeoutMs: 1000 });
    try {
      expect((await db.pool.query('SELECT 1 AS one')).rows).toEqual([{ one: 1 }]);
      proxy.freeze();
      const failed = await db.pool.query('SELECT 2 AS two').then(() => null, (error: unknown) => error);
      proxy.thaw();
      expect(isReadTimeout(failed)).toBe(true);
      expect(unreachableStorageError(failed)?.message).toBe('the database could not be reached; retry shortly');
      expect((await db.pool.query('SELECT 3 AS three')).rows).toEqual([{ three: 3 }]);
    } finally {
      await db.close();
    }
  });

  it('in a transaction: the ROLLBACK does not wait behind it, and the connection is not given back to the pool to hang the next request', async () => {
    const db = await openPgDatabase(proxy.url, { max: 1, readTimeoutMs: 1000 });
    try {
      const failed = await inTransaction(db.pool, async (client) => {
        await client.query('SELECT 1');
        proxy.freeze();
        return client.query('SELECT 2');
      }).then(() => null, (error: unknown) => error);
      proxy.thaw();
      expect(isReadTimeout(failed)).toBe(true);
      // One connection in the pool: this query would queue behind the unanswered one if it were kept.
      expect((await db.pool.query('SELECT 3 AS three')).rows).toEqual([{ three: 3 }]);
    } finally {
      await db.close();
    }
  });
});

describe('a database host that is gone', () => {
  it('is found by TCP keepalive: every pooled connection has it on (the kernel socket table shows its timer)', async () => {
    const db = await openPgDatabase(proxy.url, { max: 1 });
    try {
      const client = await db.pool.connect();
      const port = (client as unknown as { connection: { stream: net.Socket } }).connection.stream.localPort;
      client.release();
      const socket = execFileSync('ss', ['-tnoH', 'state', 'established', `( sport = :${port} )`]).toString();
      expect(socket).toContain('timer:(keepalive,');
    } finally {
      await db.close();
    }
  });
});

describe('a serving process whose database stops answering (LINEAGE_DATABASE_READ_SECONDS)', () => {
  it('answers a request with a 503 busy + Retry-After, not a 500 nor never; once the database answers again, so does it', async () => {
    const { bucket, settings } = await freshBucket();
    const env = scaleOutEnv(proxy.url, bucket, settings, { LINEAGE_DATABASE_READ_SECONDS: '1' });
    const storage = await openStorage(storageConfigFrom(env));
    const server = await createLineageServer({ dataDir: tempDataDir(), storage, port: 0, ui: false, log: () => undefined });
    try {
      const { key } = await storage.createApiKey({ name: 't', now: new Date() });
      const id = randomUUID();
      const register = { method: 'POST', key, contentType: 'application/json', body: JSON.stringify({ id, name: 'silent', source_runtime: 'openclaw' }) };
      expect((await call(`${server.url}/v1/agents`, register)).status).toBe(201);
      proxy.freeze();
      const refused = await call(`${server.url}/v1/agents/${id}`, { key });
      proxy.thaw();
      expect([refused.status, refused.json, refused.headers.get('retry-after')])
        .toEqual([503, { error: 'the database could not be reached; retry shortly', code: 'busy' }, '5']);
      const again = await call(`${server.url}/v1/agents/${id}`, { key });
      expect([again.status, again.json.id]).toEqual([200, id]);
    } finally {
      await server.close(); // closes the storage too
    }
  });
});
