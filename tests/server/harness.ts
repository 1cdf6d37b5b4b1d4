import { embeddedLedger } from '@/lib/storage/embedded';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { closeDatabase, openDatabase } from '@/db/client';
import { createApiKey } from '@/lib/server/api-keys';
import { createLineageServer, type LineageServer } from '@/lib/server/http-server';
import type { ServerLimits } from '@/lib/server/limits';

/** A fresh temporary data directory. */
export function tempDataDir(): string {
  return mkdtempSync(path.join(os.tmpdir(), 'lineage-server-test-'));
}

/** A reply read whole: status, headers, body text and parsed JSON (when it is JSON). */
export interface Reply {
  status: number;
  headers: Headers;
  text: string;
  json: any;
}

/** One HTTP call with optional bearer key and body. */
export async function call(
  url: string,
  init: { method?: string; key?: string | null; body?: Uint8Array | string; contentType?: string; headers?: Record<string, string> } = {},
): Promise<Reply> {
  const headers: Record<string, string> = { ...init.headers };
  if (init.key) headers.authorization = `Bearer ${init.key}`;
  if (init.contentType) headers['content-type'] = init.contentType;
  const res = await fetch(url, { method: init.method ?? 'GET', headers, body: init.body as BodyInit | undefined });
  const text = await res.text();
  let json: unknown = undefined;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: res.status, headers: res.headers, text, json };
}

/** An in-process server on a temp data directory with two tenants' keys. */
export interface TestServer {
  url: string;
  dataDir: string;
  keyA: string;
  keyB: string;
  server: LineageServer;
  close(): Promise<void>;
}

export async function startTestServer(limits: Partial<ServerLimits> = {}): Promise<TestServer> {
  const dataDir = tempDataDir();
  const server = await createLineageServer({ dataDir, port: 0, ui: false, limits, log: () => undefined });
  const db = embeddedLedger(server.service.storage).db;
  const keyA = createApiKey({ db, name: 'tenant-a', now: new Date() }).key;
  const keyB = createApiKey({ db, name: 'tenant-b', now: new Date() }).key;
  return {
    url: server.url, dataDir, keyA, keyB, server,
    close: async () => {
      await server.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** Every file under `dir` (relative paths, sorted) with its size. */
export function listFiles(dir: string): string[] {
  const out: string[] = [];
  const walk = (sub: string) => {
    let names: string[];
    try {
      names = readdirSync(path.join(dir, sub));
    } catch {
      return;
    }
    for (const name of names) {
      const rel = sub ? `${sub}/${name}` : name;
      const stats = statSync(path.join(dir, rel));
      if (stats.isDirectory()) walk(rel);
      else out.push(`${rel}:${stats.size}`);
    }
  };
  walk('');
  return out.sort();
}

/** What "nothing was written" compares: ledger rows, index rows, agents, blob files. */
export function stateFingerprint(dataDir: string): Record<string, unknown> {
  const { sqlite } = openDatabase(dataDir);
  const count = (table: string) => (sqlite.prepare(`SELECT count(*) AS n FROM ${table}`).get() as { n: number }).n;
  return {
    agents: sqlite.prepare('SELECT id, latest_sequence, latest_snapshot_seq FROM agents ORDER BY id').all(),
    ledger_entries: count('ledger_entries'),
    record_versions: count('record_versions'),
    records: count('records'),
    raw_file_versions: count('raw_file_versions'),
    raw_objects: count('raw_objects'),
    blobs: listFiles(path.join(dataDir, 'blobs')),
  };
}

/** A `lineage serve --no-ui` child process. */
export interface ChildServer {
  url: string;
  child: ChildProcess;
  stderr: () => string;
  /** Everything the server printed on stdout so far. */
  stdout: () => string;
  /** SIGKILL and wait for exit. */
  kill(): Promise<void>;
  /** SIGTERM and wait for exit. */
  stop(): Promise<void>;
}

const ENTRY = path.resolve(process.cwd(), 'lib/cli/main.ts');

/** Spawns `serve --no-ui --port 0` on `dataDir` and waits for its URL on stderr. */
export async function spawnServer(dataDir: string, env: Record<string, string> = {}): Promise<ChildServer> {
  return spawnServe(['--no-ui', '--port', '0', '--data', dataDir], env);
}

/** Spawns `lineage serve <args>` and waits for its URL on stderr (a dashboard may build first: long timeout). */
export async function spawnServe(args: string[], env: Record<string, string> = {}, timeoutMs = 30_000): Promise<ChildServer> {
  const child = spawn(process.execPath, ['--import', 'tsx', ENTRY, 'serve', ...args], {
    cwd: process.cwd(),
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let err = '';
  child.stderr!.on('data', (chunk: Buffer) => {
    err += chunk.toString();
  });
  let out = '';
  child.stdout!.on('data', (chunk: Buffer) => {
    out += chunk.toString();
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`server did not start: ${err}`)), timeoutMs);
    const check = () => {
      const match = /listening on (http:\/\/\S+)/.exec(err);
      if (match) {
        clearTimeout(timer);
        resolve(match[1]!);
      }
    };
    child.stderr!.on('data', check);
    child.once('exit', (code) => reject(new Error(`server exited (${code}) before listening: ${err}`)));
  });
  const signal = async (name: NodeJS.Signals) => {
    if (child.exitCode === null && child.signalCode === null) child.kill(name);
    await exited;
  };
  return { url, child, stderr: () => err, stdout: () => out, kill: () => signal('SIGKILL'), stop: () => signal('SIGTERM') };
}

/** A `lineage serve` child (with its dashboard) on a fresh data directory holding two tenants' keys, `a` and `b`. */
export interface ServedTenants {
  dataDir: string;
  server: ChildServer;
  url: string;
  keys: { a: string; b: string };
  /** Stops the server and removes the data directory. */
  stop(): Promise<void>;
}

/** What the hostile-input tests start from (the dashboard may build first: long timeout). */
export async function serveTwoTenants(): Promise<ServedTenants> {
  const dataDir = tempDataDir();
  const keys = { a: issueKey(dataDir, 'a'), b: issueKey(dataDir, 'b') };
  const server = await spawnServe(['--port', '0', '--data', dataDir], {}, 900_000);
  return {
    dataDir, server, url: server.url, keys,
    stop: async () => {
      await server.stop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** Issues a key directly in a data directory (what `lineage keys create` does). */
export function issueKey(dataDir: string, name = 'test'): string {
  const db = openDatabase(dataDir);
  const key = createApiKey({ db, name, now: new Date() }).key;
  closeDatabase(db);
  return key;
}
