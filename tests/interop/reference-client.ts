/**
 * A client written from CONTRACT §1–§2 alone (not from our lib/client): the request sequences the
 * reference `alf` CLI sends, one HTTP call per step, with nothing else added — bearer auth on the
 * service routes, none on presigned URLs, the 6,000,000-byte switch to the presigned flow, the
 * register-409 path (GET the agent, `already_existed`), the stale-base 409 read from
 * `X-Latest-Sequence`. Every step returns the raw reply, so a test asserts what the reference would read.
 */

/** Strictly above this the reference uploads through a presigned URL (CONTRACT §1.2). */
export const DIRECT_MAX = 6_000_000;

export interface Reply {
  status: number;
  headers: Headers;
  json: any;
  bytes: Uint8Array;
}

export interface Step extends Reply {
  method: string;
  path: string;
}

export class ReferenceClient {
  /** Every request sent, in order: what a test compares with the reference's sequence. */
  readonly log: { method: string; url: string; auth: boolean; contentType: string | null }[] = [];

  constructor(private readonly base: string, private readonly apiKey: string) {}

  private async send(method: string, url: string, init: { body?: Uint8Array; json?: unknown; auth?: boolean } = {}): Promise<Reply> {
    const auth = init.auth ?? true;
    const headers: Record<string, string> = {};
    if (auth) headers.authorization = `Bearer ${this.apiKey}`;
    let body: Uint8Array | string | undefined;
    if (init.json !== undefined) {
      headers['content-type'] = 'application/json';
      body = JSON.stringify(init.json);
    } else if (init.body) {
      headers['content-type'] = 'application/octet-stream';
      body = init.body;
    } else if (auth && method === 'POST') {
      // The reference's bodiless POSTs (presigned initiate, confirm) still declare JSON.
      headers['content-type'] = 'application/json';
    }
    this.log.push({ method, url, auth, contentType: headers['content-type'] ?? null });
    const res = await fetch(url, { method, headers, body: body as BodyInit | undefined });
    const bytes = new Uint8Array(await res.arrayBuffer());
    let json: unknown;
    try {
      json = JSON.parse(Buffer.from(bytes).toString('utf8'));
    } catch {
      json = undefined;
    }
    return { status: res.status, headers: res.headers, json, bytes };
  }

  private url(path: string): string {
    return `${this.base.replace(/\/$/, '')}${path}`;
  }

  /** `POST /agents`; on 409 the reference GETs the agent and goes on with `already_existed`. */
  async register(agent: { id: string; name: string; source_runtime: string }): Promise<{ created: Reply; existing?: Reply; alreadyExisted: boolean }> {
    const created = await this.send('POST', this.url('/agents'), { json: agent });
    if (created.status !== 409) return { created, alreadyExisted: false };
    return { created, existing: await this.getAgent(agent.id), alreadyExisted: true };
  }

  getAgent(id: string): Promise<Reply> {
    return this.send('GET', this.url(`/agents/${id}`));
  }

  /** A snapshot: direct `PUT` up to 6,000,000 bytes, else initiate → PUT (no auth) → confirm. */
  async uploadSnapshot(id: string, bytes: Uint8Array): Promise<{ final: Reply; steps: Reply[] }> {
    if (bytes.byteLength <= DIRECT_MAX) {
      const final = await this.send('PUT', this.url(`/agents/${id}/snapshot`), { body: bytes });
      return { final, steps: [final] };
    }
    const initiate = await this.send('POST', this.url(`/agents/${id}/snapshot/upload`));
    if (initiate.status !== 200) return { final: initiate, steps: [initiate] };
    const put = await this.send('PUT', initiate.json.upload_url, { body: bytes, auth: false });
    const final = await this.send('POST', this.url(`/agents/${id}/snapshot/upload/${initiate.json.snapshot_id}/confirm`));
    return { final, steps: [initiate, put, final] };
  }

  /** A delta on `baseSequence`: direct `POST` up to 6,000,000 bytes, else the presigned three steps. */
  async pushDelta(id: string, baseSequence: number, bytes: Uint8Array): Promise<{ final: Reply; steps: Reply[]; latest?: number }> {
    const query = `?base_sequence=${baseSequence}`;
    let steps: Reply[];
    if (bytes.byteLength <= DIRECT_MAX) {
      steps = [await this.send('POST', this.url(`/agents/${id}/deltas${query}`), { body: bytes })];
    } else {
      const initiate = await this.send('POST', this.url(`/agents/${id}/deltas/upload${query}`));
      steps = [initiate];
      if (initiate.status === 200) {
        steps.push(await this.send('PUT', initiate.json.upload_url, { body: bytes, auth: false }));
        steps.push(await this.send('POST', this.url(`/agents/${id}/deltas/upload/${initiate.json.delta_id}/confirm`)));
      }
    }
    const final = steps[steps.length - 1]!;
    // The reference reads the server's sequence from this header (case-insensitive) on a 409.
    const header = final.status === 409 ? final.headers.get('x-latest-sequence') : null;
    return { final, steps, ...(header !== null ? { latest: Number(header) } : {}) };
  }

  /** `GET restore` (`?up_to_sequence=N` for `--at-sequence N`), then every presigned URL without auth, in list order. */
  async restore(id: string, upTo?: number): Promise<{ reply: Reply; snapshot?: Uint8Array; deltas: { sequence: number; bytes: Uint8Array }[] }> {
    const reply = await this.send('GET', this.url(`/agents/${id}/restore${upTo === undefined ? '' : `?up_to_sequence=${upTo}`}`));
    if (reply.status !== 200 || !reply.json.snapshot) return { reply, deltas: [] };
    const snapshot = (await this.send('GET', reply.json.snapshot.url, { auth: false })).bytes;
    const deltas = [];
    for (const d of reply.json.deltas as { url: string; sequence: number }[]) {
      deltas.push({ sequence: d.sequence, bytes: (await this.send('GET', d.url, { auth: false })).bytes });
    }
    return { reply, snapshot, deltas };
  }

  deleteAgent(id: string): Promise<Reply> {
    return this.send('DELETE', this.url(`/agents/${id}`));
  }
}
