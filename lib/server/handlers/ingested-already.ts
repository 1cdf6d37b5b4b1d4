import { sha256Hex } from '@/lib/core/uuid';
import type { IngestResult } from '@/lib/ledger/ingest';
import type { LineageStorage } from '@/lib/storage/types';
import type { PendingUpload } from '../upload-store';

/**
 * The ledger entry a confirm made before its process died between the commit and recording the
 * reply (kill -9, a crash, a lost connection), or null. A retried confirm must answer with that
 * entry, not ingest the bytes again (a second snapshot at the next sequence) nor refuse them (a
 * delta's 409, its base having moved by the very upload). It is that entry when the ledger holds
 * these very bytes where the upload was going: a delta's at its base + 1; a snapshot's as the
 * agent's latest entry (answering with it then is what ingesting the same snapshot again would leave).
 * Only bytes of the entry's size are hashed: any other upload (the common snapshot confirm, whose
 * agent's latest entry is a snapshot) is not a retry, and the ingest hashes its bytes anyway.
 */
export async function ingestedAlready(storage: LineageStorage, upload: PendingUpload, bytes: Uint8Array): Promise<IngestResult | null> {
  const agent = await storage.getAgent({ agentId: upload.agentId });
  if (!agent || agent.latest_sequence === null) return null;
  const seq = upload.kind === 'delta' ? (upload.baseSequence ?? -1) + 1 : agent.latest_sequence;
  if (seq > agent.latest_sequence) return null;
  const [entry] = await storage.listEntries({ agentId: agent.id, sinceSeq: seq - 1, upToSeq: seq, kind: upload.kind });
  if (!entry || entry.seq !== seq || entry.size_bytes !== bytes.byteLength) return null;
  if (entry.sha256 !== sha256Hex(bytes)) return null;
  return { id: entry.id, sequence: entry.seq, blobKey: entry.blob_key, sizeBytes: entry.size_bytes };
}
