/**
 * The sign-in rate limit behind a TLS-terminating reverse proxy, against a real
 * `lineage serve --auth required --trust-proxy 127.0.0.2` with its dashboard. Every client of a
 * proxy connects from the proxy's address: before, the limit counted them all as one, so ten
 * attempts from anyone held sign-in for everybody for five minutes. Now, from a trusted proxy, the
 * client is the right-most `X-Forwarded-For` address that is not a trusted proxy. From any other
 * peer the header is ignored (a client cannot pick its own bucket), and a header that cannot be read
 * falls back to the peer's address — never a 500. (All of 127/8 is this machine: 127.0.0.2 and 127.0.0.5
 * play proxies, 127.0.0.3 and 127.0.0.4 clients that reach the server directly.)
 */
import http from 'node:http';
import { describe, expect, it } from 'vitest';
import type { RawReply } from './dashboard-http';
import { authRequiredServer } from './auth-required-server';
import type { ChildServer } from './harness';

const PROXY = '127.0.0.2';
const DIRECT = '127.0.0.3';
/** Another trusted proxy, its bucket untouched by the tests before its own. */
const PROXY_B = '127.0.0.5';

let server: ChildServer;
let dataDir: string;
let key = '';

authRequiredServer('proxy', (s) => ({ server, dataDir, key } = s), ['--trust-proxy', `${PROXY}, ${PROXY_B}, 10.0.0.0/8`]);

/** POST /login with `key` from the local address `from`, with an `X-Forwarded-For` when given. */
function postLogin(from: string, forwardedFor: string | null, withKey = key): Promise<RawReply> {
  return new Promise((resolve, reject) => {
    const req = http.request(`${server.url}/login`, {
      method: 'POST', localAddress: from,
      headers: { 'content-type': 'application/x-www-form-urlencoded', ...(forwardedFor === null ? {} : { 'x-forwarded-for': forwardedFor }) },
    }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text: Buffer.concat(chunks).toString('utf8') }));
    });
    req.on('error', reject);
    req.end(new URLSearchParams({ key: withKey, next: '/' }).toString());
  });
}

/** What a sign-in came to: signed in, a wrong key, throttled, or the whole reply when none of these. */
function outcome(reply: RawReply): string {
  if (reply.status === 303 && /^lineage_session=v2\./.test(reply.headers['set-cookie']?.[0] ?? '')) return 'signed in';
  if (reply.status === 303 && reply.headers.location?.startsWith('/login?error=invalid')) return 'wrong key';
  if (reply.status === 429 && /Too many sign-in attempts/.test(reply.text)) return 'throttled';
  return `${reply.status} ${reply.text}`;
}

/** Ten wrong keys from `from` (the limit), each answered as a wrong key. */
async function exhaust(from: string, forwardedFor: (i: number) => string | null): Promise<void> {
  for (let i = 0; i < 10; i += 1) expect(outcome(await postLogin(from, forwardedFor(i), 'alf_sk_wrong'))).toBe('wrong key');
}

describe('sign-in behind a trusted proxy (--trust-proxy)', () => {
  it('throttles each forwarded client on its own: one locked out, another and the proxy itself not', async () => {
    await exhaust(PROXY, () => '203.0.113.5');
    expect(outcome(await postLogin(PROXY, '203.0.113.5'))).toBe('throttled');
    // What the client wrote to the left of what the proxy appended does not get it a new bucket;
    // a chain of trusted proxies (10.0.0.0/8) is walked past to the client.
    expect(outcome(await postLogin(PROXY, '198.51.100.77, 203.0.113.5'))).toBe('throttled');
    expect(outcome(await postLogin(PROXY, '203.0.113.5, 10.1.2.3'))).toBe('throttled');
    expect(outcome(await postLogin(PROXY, '203.0.113.6'))).toBe('signed in');
    expect(outcome(await postLogin(PROXY, '198.51.100.77, 203.0.113.6, 10.1.2.3'))).toBe('signed in');
    expect(outcome(await postLogin(PROXY, '[2001:db8::6]:4711'))).toBe('signed in');
    expect(outcome(await postLogin(PROXY, null))).toBe('signed in');
    expect(outcome(await postLogin('127.0.0.4', null))).toBe('signed in');
  });

  it('ignores X-Forwarded-For from a peer that is not a trusted proxy: it counts as itself', async () => {
    // A client that reaches the server directly names a new address each time: all are its own.
    await exhaust(DIRECT, (i) => `198.51.100.${i + 1}`);
    expect(outcome(await postLogin(DIRECT, '198.51.100.99'))).toBe('throttled');
    expect(outcome(await postLogin(DIRECT, null))).toBe('throttled');
    // The addresses it named are not locked out behind the proxy.
    expect(outcome(await postLogin(PROXY, '198.51.100.1'))).toBe('signed in');
    expect(outcome(await postLogin(PROXY, '198.51.100.99'))).toBe('signed in');
  });

  it('a header from the proxy that cannot be read counts as the proxy, never a 500', async () => {
    const malformed = ['', ',', 'garbage', '1.2.3.4.5', '999.1.1.1', '[1.2.3.4]', '2001:db8::1:4711x', '203.0.113.9, unknown', 'x'.repeat(4000), '203.0.113.9,'];
    await exhaust(PROXY_B, (i) => malformed[i]!);
    expect(outcome(await postLogin(PROXY_B, null))).toBe('throttled');
    expect(outcome(await postLogin(PROXY_B, 'not an address'))).toBe('throttled');
    // A readable header from the proxy still names its client.
    expect(outcome(await postLogin(PROXY_B, '203.0.113.9'))).toBe('signed in');
  });
});
