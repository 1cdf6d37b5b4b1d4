import { AgentIdTakenError, AlfApiError, SyncConflictError } from './errors';
import type {
  AgentInfo,
  DeleteResult,
  DeltaLink,
  DeltaUploadResult,
  RegisterAgentInput,
  RestoreResponse,
  SnapshotLink,
  SnapshotUploadResult,
} from './types';

export * from './errors';
export type * from './types';

/** Bundles strictly larger than this go through the presigned three-step upload (CONTRACT §1.2). */
export const PRESIGNED_THRESHOLD_BYTES = 6_000_000;
const TIMEOUT_MS = 120_000;

export interface AlfApiClientOptions {
  /** Service base URL, with or without `/v1`; a trailing `/` is stripped. */
  baseUrl: string;
  apiKey: string;
  /** Per-request timeout; the reference uses 120 s. */
  timeoutMs?: number;
}

interface CallOptions {
  method: string;
  body?: Uint8Array | string;
  contentType?: string;
  auth?: boolean;
}

/**
 * HTTP client of the ALF protocol, behaving like the reference CLI's client:
 * bearer auth, 120 s timeout, no retries, presigned upload above 6,000,000 bytes.
 */
export class AlfApiClient {
  private readonly baseUrl: string;
  private readonly apiKey: string;
  private readonly timeoutMs: number;

  constructor(options: AlfApiClientOptions) {
    this.baseUrl = options.baseUrl.replace(/\/+$/, '');
    this.apiKey = options.apiKey;
    this.timeoutMs = options.timeoutMs ?? TIMEOUT_MS;
  }

  /** POST /agents; a 409 means the id is taken: the agent is fetched and `alreadyExisted` set. */
  async register(input: RegisterAgentInput): Promise<{ agent: AgentInfo; alreadyExisted: boolean }> {
    const res = await this.call(`/agents`, { method: 'POST', body: JSON.stringify(input), contentType: 'application/json' });
    if (res.status === 409) {
      const body = (await res.json().catch(() => ({}))) as { code?: unknown; error?: unknown };
      if (body.code === 'agent_id_taken') throw new AgentIdTakenError(String(body.error ?? 'agent id taken by another API key'));
      return { agent: await this.getAgent(input.id), alreadyExisted: true };
    }
    return { agent: await this.expectJson<AgentInfo>('register agent', res, 201), alreadyExisted: false };
  }

  /** GET /agents/{id} — AgentInfo with `layer_counts`. */
  async getAgent(agentId: string): Promise<AgentInfo> {
    return this.expectJson('get agent', await this.call(this.agentPath(agentId), { method: 'GET' }), 200);
  }

  /** GET /agents — the caller's agents. */
  async listAgents(): Promise<AgentInfo[]> {
    const body = await this.expectJson<{ agents: AgentInfo[] }>('list agents', await this.call('/agents', { method: 'GET' }), 200);
    return body.agents;
  }

  /**
   * DELETE /agents/{id}. `ifEmpty`: `?if_empty=true` (our server's: refused with a 409 when the agent
   * holds an entry by the time the delete runs; a server that does not know it deletes anyway).
   */
  async deleteAgent(agentId: string, options: { ifEmpty?: boolean } = {}): Promise<DeleteResult> {
    const path = options.ifEmpty ? `${this.agentPath(agentId)}?if_empty=true` : this.agentPath(agentId);
    return this.expectJson('delete agent', await this.call(path, { method: 'DELETE' }), 200);
  }

  /** Uploads a full `.alf`: direct PUT up to 6,000,000 bytes, the presigned flow above. */
  async putSnapshot(agentId: string, bytes: Uint8Array): Promise<SnapshotUploadResult> {
    const base = `${this.agentPath(agentId)}/snapshot`;
    if (bytes.byteLength <= PRESIGNED_THRESHOLD_BYTES) {
      const res = await this.call(base, { method: 'PUT', body: bytes, contentType: 'application/octet-stream' });
      return this.expectJson('upload snapshot', res, 201);
    }
    const init = await this.expectJson<{ upload_url: string; snapshot_id: string }>(
      'initiate snapshot upload',
      await this.call(`${base}/upload`, { method: 'POST', contentType: 'application/json' }),
      200,
    );
    await this.putPresigned(init.upload_url, bytes);
    const confirm = await this.call(`${base}/upload/${encodeURIComponent(init.snapshot_id)}/confirm`, { method: 'POST' });
    return this.expectJson('confirm snapshot upload', confirm, 201);
  }

  /** Pushes a `.alf-delta` on `baseSequence`; a stale base throws `SyncConflictError`. */
  async pushDelta(agentId: string, baseSequence: number, bytes: Uint8Array): Promise<DeltaUploadResult> {
    const base = `${this.agentPath(agentId)}/deltas`;
    const query = `?base_sequence=${baseSequence}`;
    if (bytes.byteLength <= PRESIGNED_THRESHOLD_BYTES) {
      const res = await this.call(`${base}${query}`, { method: 'POST', body: bytes, contentType: 'application/octet-stream' });
      this.throwOnConflict(res, baseSequence);
      return this.expectJson('upload delta', res, 201);
    }
    const initRes = await this.call(`${base}/upload${query}`, { method: 'POST', contentType: 'application/json' });
    this.throwOnConflict(initRes, baseSequence);
    const init = await this.expectJson<{ upload_url: string; delta_id: string }>('initiate delta upload', initRes, 200);
    await this.putPresigned(init.upload_url, bytes);
    const confirm = await this.call(`${base}/upload/${encodeURIComponent(init.delta_id)}/confirm`, { method: 'POST' });
    this.throwOnConflict(confirm, baseSequence);
    return this.expectJson('confirm delta upload', confirm, 201);
  }

  /** GET /agents/{id}/restore[?up_to_sequence=N]. */
  async restore(agentId: string, options: { upToSequence?: number } = {}): Promise<RestoreResponse> {
    const query = options.upToSequence === undefined ? '' : `?up_to_sequence=${options.upToSequence}`;
    return this.expectJson('restore', await this.call(`${this.agentPath(agentId)}/restore${query}`, { method: 'GET' }), 200);
  }

  /** GET /agents/{id}/deltas?since=N. */
  async deltasSince(agentId: string, since: number): Promise<DeltaLink[]> {
    const res = await this.call(`${this.agentPath(agentId)}/deltas?since=${since}`, { method: 'GET' });
    return (await this.expectJson<{ deltas: DeltaLink[] }>('list deltas', res, 200)).deltas;
  }

  /** GET /agents/{id}/snapshot — a download link to the latest snapshot. */
  async getSnapshot(agentId: string): Promise<SnapshotLink> {
    return this.expectJson('get snapshot', await this.call(`${this.agentPath(agentId)}/snapshot`, { method: 'GET' }), 200);
  }

  /** Downloads a signed URL (no Authorization header) and returns its exact bytes. */
  async download(url: string): Promise<Uint8Array> {
    const res = await this.call(url, { method: 'GET', auth: false });
    if (!res.ok) throw new AlfApiError('download', res.status, await res.text());
    return new Uint8Array(await res.arrayBuffer());
  }

  private agentPath(agentId: string): string {
    return `/agents/${encodeURIComponent(agentId)}`;
  }

  private async putPresigned(url: string, bytes: Uint8Array): Promise<void> {
    const res = await this.call(url, { method: 'PUT', body: bytes, contentType: 'application/octet-stream', auth: false });
    if (!res.ok) throw new AlfApiError('presigned upload', res.status, await res.text());
    await res.body?.cancel();
  }

  private throwOnConflict(res: Response, baseSequence: number): void {
    if (res.status !== 409) return;
    void res.body?.cancel();
    const header = res.headers.get('x-latest-sequence');
    const latest = header !== null && /^\d+$/.test(header.trim()) ? Number(header.trim()) : null;
    throw new SyncConflictError(latest, baseSequence);
  }

  private async expectJson<T>(operation: string, res: Response, expected: number): Promise<T> {
    const text = await res.text();
    if (res.status !== expected) throw new AlfApiError(operation, res.status, serverMessage(text), retryAfterSeconds(res));
    try {
      return JSON.parse(text) as T;
    } catch {
      throw new AlfApiError(operation, res.status, `failed to parse response: ${text.slice(0, 200)}`);
    }
  }

  private async call(pathOrUrl: string, options: CallOptions): Promise<Response> {
    const url = /^https?:\/\//.test(pathOrUrl) ? pathOrUrl : `${this.baseUrl}${pathOrUrl}`;
    const headers: Record<string, string> = {};
    if (options.auth !== false) headers.authorization = `Bearer ${this.apiKey}`;
    if (options.contentType) headers['content-type'] = options.contentType;
    return fetch(url, {
      method: options.method,
      headers,
      body: options.body as BodyInit | undefined,
      signal: AbortSignal.timeout(this.timeoutMs),
    });
  }
}

/** A 503's `Retry-After` when it is a delay in seconds (the form this server sends), else null. */
function retryAfterSeconds(res: Response): number | null {
  const value = res.status === 503 ? res.headers.get('retry-after')?.trim() : undefined;
  return value !== undefined && /^\d{1,6}$/.test(value) ? Number(value) : null;
}

function serverMessage(text: string): string {
  try {
    const parsed = JSON.parse(text) as { error?: unknown };
    if (typeof parsed.error === 'string') return parsed.error;
  } catch {
    // not JSON: fall through to the raw text
  }
  return text.slice(0, 500);
}
