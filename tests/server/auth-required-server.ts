/**
 * A real `lineage serve --auth required` with its dashboard, on a data directory of its own holding
 * one API key, started before a test file's tests and stopped (the directory removed) after them.
 */
import fs from 'node:fs';
import { afterAll, beforeAll } from 'vitest';
import { closeDatabase, openDatabase } from '@/db/client';
import { createApiKey } from '@/lib/server/api-keys';
import { spawnServe, tempDataDir, type ChildServer } from './harness';

export interface AuthRequiredServer {
  server: ChildServer;
  dataDir: string;
  /** The key (`alf_sk_…`) the data directory holds. */
  key: string;
}

/**
 * Registers the file's `beforeAll`/`afterAll`; `started` is given the server once it answers.
 * `keyName` names the key; `serveArgs` are added to `serve`'s own.
 */
export function authRequiredServer(keyName: string, started: (s: AuthRequiredServer) => void, serveArgs: readonly string[] = []): void {
  let dataDir = '';
  let server: ChildServer | undefined;
  beforeAll(async () => {
    dataDir = tempDataDir();
    const db = openDatabase(dataDir);
    const key = createApiKey({ db, name: keyName, now: new Date() }).key;
    closeDatabase(db);
    server = await spawnServe(['--port', '0', '--auth', 'required', '--data', dataDir, ...serveArgs], {}, 900_000);
    started({ server, dataDir, key });
  }, 900_000);
  afterAll(async () => {
    await server?.stop();
    if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true });
  });
}
