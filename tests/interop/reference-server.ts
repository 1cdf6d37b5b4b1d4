/**
 * A real `lineage serve` on a data directory of its own holding one key, a reference client of that
 * key, and a scratch directory: what a test of the reference CLI's side of the protocol starts
 * before its file's tests and removes after them.
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { issueKey, spawnServer, tempDataDir, type ChildServer } from '../server/harness';
import { ReferenceClient } from './reference-client';

export interface ReferenceServer {
  tmp: string;
  dataDir: string;
  key: string;
  server: ChildServer;
  client: ReferenceClient;
}

/** Registers the file's `beforeAll`/`afterAll`; `started` is given them once the server answers. */
export function referenceServer(tmpPrefix: string, started: (s: ReferenceServer) => void): void {
  let s: ReferenceServer | undefined;
  beforeAll(async () => {
    const tmp = await fs.mkdtemp(path.join(os.tmpdir(), tmpPrefix));
    const dataDir = tempDataDir();
    const key = issueKey(dataDir, 'reference-cli');
    const server = await spawnServer(dataDir);
    s = { tmp, dataDir, key, server, client: new ReferenceClient(server.url, key) };
    started(s);
  }, 60_000);
  afterAll(async () => {
    if (!s) return;
    await s.server.stop();
    await fs.rm(s.tmp, { recursive: true, force: true });
    await fs.rm(s.dataDir, { recursive: true, force: true });
  });
}
