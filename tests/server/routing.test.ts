import type { IncomingMessage } from 'node:http';
import { describe, expect, it } from 'vitest';
import { isProtocolRequest } from '@/lib/server/node-bridge';
import { resolveServeSettings } from '@/lib/server/serve-options';
import { resolveLimits } from '@/lib/server/limits';
import { UrlSigner } from '@/lib/server/signing';

const req = (url: string, headers: Record<string, string> = {}) => ({ url, headers }) as unknown as IncomingMessage;

describe('protocol vs dashboard routing', () => {
  it('sends /v1/** to the protocol always', () => {
    expect(isProtocolRequest(req('/v1/agents/x', { accept: 'text/html' }))).toBe(true);
    expect(isProtocolRequest(req('/v1/blobs/a/b?sig=1'))).toBe(true);
  });
  it('sends /agents/** with a key or without text/html to the protocol', () => {
    expect(isProtocolRequest(req('/agents/x', { authorization: 'Bearer k', accept: 'text/html' }))).toBe(true);
    expect(isProtocolRequest(req('/agents', { accept: 'application/json' }))).toBe(true);
    expect(isProtocolRequest(req('/agents/x/restore'))).toBe(true);
  });
  it('sends browser and Next.js client navigations of /agents/[id] to the dashboard', () => {
    expect(isProtocolRequest(req('/agents/x', { accept: 'text/html,application/xhtml+xml' }))).toBe(false);
    expect(isProtocolRequest(req('/agents/x?_rsc=abc', { accept: '*/*' }))).toBe(false);
    expect(isProtocolRequest(req('/agents/x', { rsc: '1' }))).toBe(false);
    expect(isProtocolRequest(req('/', {}))).toBe(false);
    expect(isProtocolRequest(req('/api/agents', {}))).toBe(false);
  });
});

describe('serve settings', () => {
  it('port: --port › PORT › 3000; host 127.0.0.1; data --data › LINEAGE_DATA › ./data; ui unless --no-ui or LINEAGE_NO_UI=1', () => {
    expect(resolveServeSettings({}, {})).toMatchObject({ port: 3000, host: '127.0.0.1', ui: true, dataDir: expect.stringMatching(/\/data$/) });
    expect(resolveServeSettings({}, { PORT: '4000', LINEAGE_DATA: '/tmp/x', LINEAGE_NO_UI: '1' })).toMatchObject({ port: 4000, dataDir: '/tmp/x', ui: false });
    expect(resolveServeSettings({ port: '5000', host: '0.0.0.0', data: '/tmp/y', ui: false }, { PORT: '4000' })).toMatchObject({ port: 5000, host: '0.0.0.0', dataDir: '/tmp/y', ui: false });
    expect(resolveServeSettings({}, { LINEAGE_MAX_BODY_BYTES: '1024' }).limits).toEqual({ maxBodyBytes: 1024 });
    expect(() => resolveServeSettings({ port: 'abc' }, {})).toThrow(/--port/);
    expect(() => resolveServeSettings({}, { PORT: '70000' })).toThrow(/PORT/);
  });

  it('LINEAGE_REQUEST_SECONDS: how long a request the server does not read may take to arrive whole (1-3600 s, default 300)', () => {
    expect(resolveServeSettings({}, { LINEAGE_REQUEST_SECONDS: '600' }).limits).toEqual({ requestTimeoutMs: 600_000 });
    expect(resolveLimits({}).requestTimeoutMs).toBe(300_000);
    for (const bad of ['0', '1.5', '3601']) {
      expect(() => resolveServeSettings({}, { LINEAGE_REQUEST_SECONDS: bad })).toThrow(`LINEAGE_REQUEST_SECONDS must be a whole number of seconds from 1 to 3600, got "${bad}"`);
    }
  });

  it('LINEAGE_BODY_IDLE_SECONDS: how long a request body may stop arriving (1-3600 s, default 30)', () => {
    expect(resolveServeSettings({}, { LINEAGE_BODY_IDLE_SECONDS: '5' }).limits).toEqual({ bodyIdleMs: 5000 });
    expect(resolveServeSettings({}, {}).limits).toEqual({});
    expect(resolveLimits({}).bodyIdleMs).toBe(30_000);
    for (const bad of ['0', '-1', '1.5', 'soon', '3601']) {
      expect(() => resolveServeSettings({}, { LINEAGE_BODY_IDLE_SECONDS: bad })).toThrow(`LINEAGE_BODY_IDLE_SECONDS must be a whole number of seconds from 1 to 3600, got "${bad}"`);
    }
  });

  it('LINEAGE_SOCKET_IDLE_SECONDS: how long a begun reply may stop leaving (1-3600 s, default 120)', () => {
    expect(resolveServeSettings({}, { LINEAGE_SOCKET_IDLE_SECONDS: '7' }).limits).toEqual({ socketIdleMs: 7000 });
    expect(resolveLimits({}).socketIdleMs).toBe(120_000);
    for (const bad of ['0', '1e3', ' 5', '3601']) {
      expect(() => resolveServeSettings({}, { LINEAGE_SOCKET_IDLE_SECONDS: bad })).toThrow(`LINEAGE_SOCKET_IDLE_SECONDS must be a whole number of seconds from 1 to 3600, got "${bad}"`);
    }
  });
});

describe('URL signing', () => {
  const signer = new UrlSigner(Buffer.alloc(32, 7));
  const now = new Date('2026-05-01T00:00:00Z');
  it('accepts its own URL until it expires, and nothing altered', () => {
    const url = new URL(`http://h${signer.sign('GET', '/v1/blobs/a/b', 60, now)}`);
    expect(signer.verify('GET', url, now)).toBe('ok');
    expect(signer.verify('GET', url, new Date(now.getTime() + 61_000))).toBe('expired');
    expect(signer.verify('PUT', url, now)).toBe('invalid');
    expect(signer.verify('GET', new URL(url.toString().replace('/b?', '/c?')), now)).toBe('invalid');
    expect(new UrlSigner(Buffer.alloc(32, 8)).verify('GET', url, now)).toBe('invalid');
  });
});
