/** Query-string schemas of the dashboard API (strings in, typed values out; failures are 400s). */
import { z } from 'zod';
import { COMPARE_MORE_LIMIT } from '@/components/compare/limits';
import { parseIsoTime } from '@/lib/history/queries/iso-time';

const seqString = z.string().regex(/^\d+$/, 'must be a non-negative integer').transform(Number).pipe(z.number().int().max(Number.MAX_SAFE_INTEGER));
const limitString = z.string().regex(/^\d+$/, 'must be a positive integer').transform(Number).pipe(z.number().int().min(1).max(500));
/** A date or date-time (no zone: UTC), as a Date; a day the month lacks or a bare number is a 400 (iso-time.ts). */
const isoTime = z.string().refine((s) => parseIsoTime(s) !== null, 'must be an ISO 8601 time').transform((s) => parseIsoTime(s)!);
/** A filter's value, exactly as given (` x` is not `x`: a stored value may begin or end with white space); empty is a 400. */
const text = z.string().min(1).max(500);
/** A page size of the keyset-paged lists (1…1000). */
const pageLimit = z.string().regex(/^\d+$/, 'must be a positive integer').transform(Number).pipe(z.number().int().min(1).max(1000));
/** An opaque paging cursor, as the previous page's `next_cursor` gave it (lib/history checks its contents). */
const cursor = z.string().min(1).max(2000);

/**
 * GET /api/agents: the fleet with its stats (default), or `view=names`, the agents' ids, names and
 * runtimes alone — what an agent filter needs, without computing every agent's stats.
 */
export const agentsQuery = z.object({ view: z.enum(['stats', 'names']).optional() }).strict();

/** The `[seq]` path segment. */
export const sequencePath = z.object({ seq: seqString });

/** A sequence's detail: `limit` ops of each kind, `raw_limit` raw files (each a first page). */
export const sequenceQuery = z.object({ limit: pageLimit.optional(), raw_limit: pageLimit.optional() }).strict();

export const sequenceOpsQuery = z.object({
  op: z.enum(['create', 'update', 'delete', 'move']),
  limit: pageLimit.optional(),
  cursor: cursor.optional(),
}).strict();

/** A page of a sequence's raw files; `ops_limit` is the op page size their `record_ids` refer to (the sequence's `limit`). */
export const sequenceRawQuery = z.object({
  limit: pageLimit.optional(),
  cursor: cursor.optional(),
  ops_limit: pageLimit.optional(),
}).strict();

export const sequencesQuery = z.object({ before: seqString.optional(), limit: limitString.optional() }).strict();

export const recordsQuery = z.object({
  at: seqString.optional(),
  memory_type: text.optional(),
  namespace: text.optional(),
  file: text.optional(),
  tag: text.optional(),
  status: text.optional(),
  tier: text.optional(),
  /** Text a memory's content, heading or file contains. */
  q: text.optional(),
  sort: z.enum(['file', 'heading', 'changed']).optional(),
  limit: z.string().regex(/^\d+$/, 'must be a positive integer').transform(Number).pipe(z.number().int().min(1).max(1000)).optional(),
  cursor: cursor.optional(),
}).strict();

/** A lineage: every version (no parameter), or one keyset page of them (`limit`, `cursor`, `order`). */
export const lineageQuery = z.object({
  limit: z.string().regex(/^\d+$/, 'must be a positive integer').transform(Number).pipe(z.number().int().min(1).max(500)).optional(),
  cursor: cursor.optional(),
  order: z.enum(['newest', 'oldest']).optional(),
}).strict();

export const changesQuery = z.object({
  /** ISO time, `Nd`, `today` or `this-week`; lib/history parses it (a bad value is its 400). */
  since: z.string().trim().min(1).max(64).default('this-week'),
  agent: text.optional(),
  op: z.enum(['create', 'update', 'delete', 'move']).optional(),
  limit: pageLimit.optional(),
  cursor: cursor.optional(),
}).strict();

export const searchQuery = z.object({
  q: z.string().trim().min(1, 'q is required').max(500),
  agent: text.optional(),
  limit: limitString.optional(),
  offset: seqString.optional(),
}).strict();

export const atQuery = z.object({ time: isoTime }).strict();

export const workspaceQuery = z.object({ seq: seqString.optional() }).strict();

export const workspaceRecordsQuery = z.object({
  seq: seqString.optional(),
  limit: z.string().regex(/^\d+$/, 'must be a positive integer').transform(Number).pipe(z.number().int().min(1).max(500)).optional(),
  cursor: z.string().min(1).max(2000).optional(),
}).strict();

export const workspaceFileQuery = z.object({ seq: seqString.optional(), path: z.string().min(1).max(4096) }).strict();

/** Blame: the path is required (a file of the workspace at `seq`). */
export const blameQuery = z.object({ seq: seqString.optional(), path: z.string().min(1, 'path is required').max(4096) }).strict();

export const downloadQuery = z.object({
  seq: seqString.optional(),
  format: z.enum(['tar.gz', 'zip', 'alf']).default('tar.gz'),
}).strict();

/** `?from=A&to=B` of a workspace comparison (the range itself is checked against the agent's sequences by the query). */
export const compareQuery = z.object({ from: seqString, to: seqString }).strict();
/** The compare page's query: the two sequences, and how many entries of each kind to draw (default: the first 50). */
export const comparePageQuery = z.object({
  from: seqString, to: seqString,
  limit: z.string().regex(/^\d+$/, 'must be a positive integer').transform(Number).pipe(z.number().int().min(1).max(COMPARE_MORE_LIMIT)).optional(),
}).strict();
