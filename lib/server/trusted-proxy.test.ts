/**
 * The client of a request behind `--trust-proxy`, and the sign-in limit's memory under a spray of
 * addresses (the whole server: tests/server/trust-proxy.test.ts).
 */
import { describe, expect, it } from 'vitest';
import { resolveServeSettings } from './serve-options';
import { clientBucket, SignInRateLimit } from './session-rate-limit';
import { clientAddress, parseTrustedProxies, TrustedProxies } from './trusted-proxy';

const trusted = new TrustedProxies(['10.0.0.1', '192.168.0.0/16', 'fd00::/8']);
const now = new Date('2026-01-01T00:00:00Z');

describe('the client of a request', () => {
  it('is the peer, unless the peer is a trusted proxy', () => {
    expect(clientAddress('203.0.113.1', '198.51.100.1', trusted)).toBe('203.0.113.1');
    expect(clientAddress('::ffff:203.0.113.1', '198.51.100.1', trusted)).toBe('203.0.113.1');
    expect(clientAddress('10.0.0.1', undefined, trusted)).toBe('10.0.0.1');
    expect(clientAddress(undefined, '198.51.100.1', trusted)).toBe('unknown');
    expect(clientAddress('10.0.0.1', '198.51.100.1', new TrustedProxies([]))).toBe('10.0.0.1');
  });

  it('behind a trusted proxy: the right-most forwarded address that is not a trusted proxy', () => {
    expect(clientAddress('10.0.0.1', '198.51.100.1', trusted)).toBe('198.51.100.1');
    expect(clientAddress('::ffff:10.0.0.1', '198.51.100.1', trusted)).toBe('198.51.100.1');
    expect(clientAddress('10.0.0.1', '1.1.1.1, 198.51.100.1', trusted)).toBe('198.51.100.1');
    expect(clientAddress('10.0.0.1', '1.1.1.1, 198.51.100.1, 192.168.4.4', trusted)).toBe('198.51.100.1');
    expect(clientAddress('10.0.0.1', ['1.1.1.1', '198.51.100.1, fd12::1'], trusted)).toBe('198.51.100.1');
    expect(clientAddress('fd00::5', '[2001:DB8::1]:443', trusted)).toBe('2001:db8::1');
    expect(clientAddress('10.0.0.1', '198.51.100.1:5000', trusted)).toBe('198.51.100.1');
    // All trusted: the left-most.
    expect(clientAddress('10.0.0.1', '192.168.1.1, 192.168.2.2', trusted)).toBe('192.168.1.1');
    // What the client wrote left of its own address is never reached, however malformed.
    expect(clientAddress('10.0.0.1', 'garbage, 198.51.100.1', trusted)).toBe('198.51.100.1');
  });

  it('a header that cannot be read where the client should be: the peer, never a throw', () => {
    for (const bad of ['', ' ', ',', 'garbage', '1.2.3.4.5', '999.1.1.1', '[1.2.3.4]', '1.2.3.4:99999', '198.51.100.1,', 'unknown', '\u0000', 'x'.repeat(10_000)]) {
      expect(clientAddress('10.0.0.1', bad, trusted), JSON.stringify(bad)).toBe('10.0.0.1');
    }
    expect(clientAddress('10.0.0.1', '198.51.100.1, 192.168.1.1, junk', trusted)).toBe('10.0.0.1');
  });
});

describe('--trust-proxy / LINEAGE_TRUST_PROXY', () => {
  it('takes addresses and CIDR ranges, the flag over the variable, none by default', () => {
    expect(resolveServeSettings({}, {}).trustProxy).toEqual([]);
    expect(resolveServeSettings({}, { LINEAGE_TRUST_PROXY: '10.0.0.1, fd00::/8' }).trustProxy).toEqual(['10.0.0.1', 'fd00::/8']);
    expect(resolveServeSettings({ trustProxy: '127.0.0.1' }, { LINEAGE_TRUST_PROXY: '10.0.0.1' }).trustProxy).toEqual(['127.0.0.1']);
  });

  it('refuses what is not an address or range, naming the entry', () => {
    for (const bad of ['proxy.lan', '10.0.0.1/33', '10.0.0.0/8/8', '::1/129', '10.0.0.1/', '10.0.0.1/x', '1.2.3']) {
      expect(() => resolveServeSettings({ trustProxy: bad }, {})).toThrow(`--trust-proxy: "${bad}" is not an IP address or CIDR range`);
      expect(() => resolveServeSettings({}, { LINEAGE_TRUST_PROXY: `10.0.0.1,${bad}` })).toThrow(`LINEAGE_TRUST_PROXY: "${bad}" is not an IP address or CIDR range`);
    }
    expect(parseTrustedProxies('', 'x')).toEqual([]);
    // A long entry is cut in the message (echo.ts), not repeated whole.
    expect(() => parseTrustedProxies('x'.repeat(100_000), '--trust-proxy')).toThrow(/^--trust-proxy: "x{80}… \(99920 more characters\)" is not/);
  });
});

describe('the sign-in limit under a spray of addresses', () => {
  it('an IPv6 client counts per /64: it cannot spread its attempts over its own prefix', () => {
    expect(clientBucket('2001:db8:1:2:aaaa::1')).toBe('2001:db8:1:2::/64');
    expect(clientBucket('2001:db8:1:2::ffff')).toBe('2001:db8:1:2::/64');
    expect(clientBucket('::1')).toBe('0:0:0:0::/64');
    expect(clientBucket('2001:db8::1.2.3.4')).toBe('2001:db8:0:0::/64');
    expect(clientBucket('198.51.100.1')).toBe('198.51.100.1');
    expect(clientBucket('unknown')).toBe('unknown');
    const limit = new SignInRateLimit(3, 60_000);
    for (let i = 1; i <= 3; i += 1) expect(limit.attempt(`2001:db8:1:2::${i}`, now)).toBe(0);
    expect(limit.attempt('2001:db8:1:2:ffff::9', now)).toBeGreaterThan(0);
    expect(limit.attempt('2001:db8:1:3::1', now)).toBe(0);
  });

  it('follows at most maxClients clients however many addresses come within one window', () => {
    const limit = new SignInRateLimit(10, 5 * 60_000, 1_000);
    for (let i = 0; i < 50_000; i += 1) {
      limit.attempt(`10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`, new Date(now.getTime() + i));
      expect(limit.clients).toBeLessThanOrEqual(1_000);
    }
    expect(limit.clients).toBe(1_000);
    // The latest clients are the ones followed: the last one is still counted.
    const last = '10.0.195.79'; // i = 49_999
    for (let i = 0; i < 9; i += 1) expect(limit.attempt(last, new Date(now.getTime() + 50_000))).toBe(0);
    expect(limit.attempt(last, new Date(now.getTime() + 50_000))).toBeGreaterThan(0);
  });

  it('forgets clients idle for a whole window', () => {
    const limit = new SignInRateLimit(3, 60_000);
    for (let i = 0; i < 100; i += 1) limit.attempt(`198.51.100.${i}`, now);
    expect(limit.clients).toBe(100);
    limit.attempt('203.0.113.1', new Date(now.getTime() + 60_000));
    expect(limit.clients).toBe(1);
  });
});
