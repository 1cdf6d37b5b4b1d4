/** Browser-side fetchers for the dashboard API. Errors carry the status and the server's message. */
import type {
  AgentName, AgentSummary, ArchiveFormat, Changes, Lineage, RawChangesPage, RecordOp, RecordsAt, SearchResult, SequenceAt, SequenceDetail, SequenceOpsPage,
  SequencePage, WorkspaceTree,
} from './api-types';
import type { ChangeFilters, RecordFilters } from './query-keys';
import type { FileBlame } from '@/lib/history/queries/blame';

/** A non-2xx answer of the API. */
export class ApiError extends Error {
  constructor(readonly status: number, message: string) {
    super(message);
    this.name = 'ApiError';
  }
}

type Params = Record<string, string | number | null | undefined>;

/** `path?k=v…`, dropping empty values. */
export function withQuery(path: string, params: Params = {}): string {
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(params)) {
    if (value !== undefined && value !== null && value !== '') search.set(key, String(value));
  }
  const qs = search.toString();
  return qs ? `${path}?${qs}` : path;
}

async function failure(res: Response): Promise<ApiError> {
  let message = `${res.status} ${res.statusText}`;
  try {
    const body = (await res.json()) as { error?: unknown };
    if (typeof body.error === 'string') message = body.error;
  } catch {
    // not JSON: keep the status line
  }
  return new ApiError(res.status, message);
}

export async function getJson<T>(url: string, signal?: AbortSignal): Promise<T> {
  const res = await fetch(url, { signal, headers: { accept: 'application/json' } });
  if (!res.ok) throw await failure(res);
  return (await res.json()) as T;
}

/** A workspace file: its text when the server says it is UTF-8, else only its size. */
export interface FileBody {
  text: string | null;
  size: number;
}

async function getFile(url: string, signal?: AbortSignal): Promise<FileBody> {
  const res = await fetch(url, { signal });
  if (!res.ok) throw await failure(res);
  const bytes = await res.arrayBuffer();
  const isText = (res.headers.get('content-type') ?? '').startsWith('text/');
  return { text: isText ? new TextDecoder().decode(bytes) : null, size: bytes.byteLength };
}

/** The records API's largest page. */
export const RECORDS_MAX_PAGE = 1000;

const agentPath = (agentId: string) => `/api/agents/${encodeURIComponent(agentId)}`;

export const api = {
  agents: (signal?: AbortSignal) => getJson<AgentSummary[]>('/api/agents', signal),
  agentNames: (signal?: AbortSignal) => getJson<AgentName[]>('/api/agents?view=names', signal),
  agent: (agentId: string, signal?: AbortSignal) => getJson<AgentSummary>(agentPath(agentId), signal),
  sequences: (agentId: string, before: number | null, limit: number, signal?: AbortSignal) =>
    getJson<SequencePage>(withQuery(`${agentPath(agentId)}/sequences`, { before, limit }), signal),
  sequence: (agentId: string, seq: number, limit: number, rawLimit: number, signal?: AbortSignal) =>
    getJson<SequenceDetail>(withQuery(`${agentPath(agentId)}/sequences/${seq}`, { limit, raw_limit: rawLimit }), signal),
  records: (agentId: string, at: number | null, filters: RecordFilters, cursor: string | null, signal?: AbortSignal, limit = 200) =>
    getJson<RecordsAt>(withQuery(`${agentPath(agentId)}/records`, { at, ...filters, cursor, limit }), signal),
  lineage: (agentId: string, recordId: string, signal?: AbortSignal) =>
    getJson<Lineage>(`${agentPath(agentId)}/records/${encodeURIComponent(recordId)}`, signal),
  changes: (filters: ChangeFilters, cursor: string | null, limit: number, signal?: AbortSignal) =>
    getJson<Changes>(withQuery('/api/changes', { ...filters, cursor, limit }), signal),
  sequenceOps: (agentId: string, seq: number, op: RecordOp, cursor: string, limit: number, signal?: AbortSignal) =>
    getJson<SequenceOpsPage>(withQuery(`${agentPath(agentId)}/sequences/${seq}/ops`, { op, cursor, limit }), signal),
  /** A page of a sequence's raw files; `opsLimit` is the op page size the sequence was asked with. */
  sequenceRaw: (agentId: string, seq: number, cursor: string, limit: number, opsLimit: number, signal?: AbortSignal) =>
    getJson<RawChangesPage>(withQuery(`${agentPath(agentId)}/sequences/${seq}/raw`, { cursor, limit, ops_limit: opsLimit }), signal),
  lineagePage: (agentId: string, recordId: string, order: 'newest' | 'oldest', cursor: string | null, limit: number, signal?: AbortSignal) =>
    getJson<Lineage>(withQuery(`${agentPath(agentId)}/records/${encodeURIComponent(recordId)}`, { order, cursor, limit }), signal),
  search: (q: string, agent: string | null, offset: number, limit: number, signal?: AbortSignal) =>
    getJson<SearchResult>(withQuery('/api/search', { q, agent, offset, limit }), signal),
  sequenceAt: (agentId: string, time: string, signal?: AbortSignal) =>
    getJson<SequenceAt | null>(withQuery(`${agentPath(agentId)}/at`, { time }), signal),
  workspace: (agentId: string, seq: number, signal?: AbortSignal) =>
    getJson<WorkspaceTree>(withQuery(`${agentPath(agentId)}/workspace`, { seq }), signal),
  workspaceFile: (agentId: string, seq: number, path: string, signal?: AbortSignal) =>
    getFile(workspaceFileUrl(agentId, seq, path), signal),
  blame: (agentId: string, seq: number, path: string, signal?: AbortSignal) =>
    getJson<FileBlame>(withQuery(`${agentPath(agentId)}/workspace/blame`, { seq, path }), signal),
};

export function workspaceFileUrl(agentId: string, seq: number, path: string): string {
  return withQuery(`${agentPath(agentId)}/workspace/file`, { seq, path });
}

export function downloadUrl(agentId: string, seq: number, format: ArchiveFormat): string {
  return withQuery(`${agentPath(agentId)}/workspace/download`, { seq, format });
}
