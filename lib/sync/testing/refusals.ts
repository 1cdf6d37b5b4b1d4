import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'vitest';
import { listEntries, openLedger } from '@/lib/ledger';
import { SyncError } from '../errors';

/** The SyncError `run` fails with (the test fails if it does not). */
export async function syncRefusal(run: () => Promise<unknown>): Promise<SyncError> {
  const error = await run().then(() => null, (e: unknown) => e);
  expect(error).toBeInstanceOf(SyncError);
  return error as SyncError;
}

/**
 * What a refused sync must leave as it was: the ledger's entries, and this machine's state (its
 * files; the bytes of each but the store's log, where a sync writes the new state's lines before
 * it uploads and which holds them as dead bytes until the index names them: lib/sync/store).
 */
export function storedState(dataDir: string, alfHome: string, agentId: string): string {
  const entries = fs.existsSync(dataDir) ? listEntries({ ledger: openLedger(dataDir), agentId }).map((e) => `${e.seq}:${e.sha256}`) : [];
  const state = path.join(alfHome, '.alf', 'state');
  const bytes = (f: string) => (f.endsWith('.log') ? '' : `:${fs.readFileSync(path.join(state, f)).toString('base64')}`);
  const files = fs.existsSync(state) ? fs.readdirSync(state).sort().map((f) => `${f}${bytes(f)}`) : [];
  return JSON.stringify({ entries, files });
}
