/**
 * What a sync needs only once it has something to reconcile or upload: the archive writers (and
 * with them yazl, yauzl and fflate), the reconcile against the base and the recovery rules. sync.ts
 * imports this module on first use, so that an idle `lineage sync` process never loads it.
 */
export { writeDelta, writeSnapshot, writeSnapshotRead, readSnapshotLines } from '@/lib/core/archive';
export { writeDeltaRead } from '@/lib/core/archive/write-delta';
export { KnownRecord, KnownRecordMismatch, reconcileWithBase } from '@/lib/core/reconcile-base';
export { adoptSentDelta, adoptSentSnapshot, foreignHistoryError, rebaseCommand, targetBehindError } from './recover';
export { RecordChecks } from '@/lib/ledger/record-checks';
export { checkSnapshotParts, checkSnapshotRecord } from '@/lib/ledger/ingest-checks';
export { isLedgerError } from '@/lib/ledger/errors';
