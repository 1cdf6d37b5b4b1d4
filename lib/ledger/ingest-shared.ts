/**
 * What the embedded ingest (ingest.ts) and the scale-out one (lib/storage/pg/ingest.ts) say alike:
 * how a reader's refusal becomes the ledger's, whose manifest an upload must be, and the key its
 * blob is stored under.
 */
import type { EntryKind } from '@/db/schema';
import { ArchiveError, type AlfSnapshot } from '@/lib/core/archive/types';
import { isJsonObject } from '@/lib/core/json';
import { LedgerError } from './errors';

/** `read()`, an archive the reader refuses answered as `bad_archive`. */
export async function parseArchive<T>(read: () => Promise<T>): Promise<T> {
  try {
    return await read();
  } catch (error) {
    if (error instanceof ArchiveError) throw new LedgerError('bad_archive', `bad archive: ${error.message}`, {}, { cause: error });
    throw error;
  }
}

/** Refuses a manifest (`file`) that names another agent than `agentId`. */
export function checkAgentId(manifest: AlfSnapshot['manifest'], agentId: string, file: string): void {
  const id = isJsonObject(manifest.agent) ? manifest.agent.id : undefined;
  if (typeof id !== 'string' || id.toLowerCase() !== agentId) {
    throw new LedgerError('agent_mismatch', `${file} agent.id ${JSON.stringify(id ?? null)} does not match agent ${agentId}`);
  }
}

/** The key an entry's blob is stored under: the agent, the sequence and the start of its sha256. */
export function blobKey(agentId: string, seq: number, kind: EntryKind, sha: string): string {
  return `${agentId}/${seq}-${sha.slice(0, 16)}${kind === 'snapshot' ? '.alf' : '.alf-delta'}`;
}
