/**
 * Who is asking, behind a reverse proxy: `--trust-proxy` / `LINEAGE_TRUST_PROXY` names the proxies
 * (addresses or CIDR ranges) whose `X-Forwarded-For` is believed. Only when the connecting peer is
 * one of them is the client taken from the header — the right-most address in it that is not itself
 * a trusted proxy (the one the nearest trusted proxy saw connect; what is left of it the client may
 * have written itself). From any other peer the header is ignored, so a client cannot pick its own
 * sign-in bucket by sending it; a header that cannot be read there is ignored too (the peer's address).
 */
import { BlockList, isIP } from 'node:net';
import { echoInput } from '@/lib/core/echo';

/** An address as one form: IPv4-mapped IPv6 (`::ffff:1.2.3.4`, a dual-stack socket's) as IPv4, no zone, lower case. */
export function normalizeAddress(address: string): string {
  const a = address.trim().toLowerCase().replace(/%.*$/, '');
  const mapped = /^::ffff:(\d{1,3}\.\d{1,3}\.\d{1,3}\.\d{1,3})$/.exec(a);
  return mapped && isIP(mapped[1]!) === 4 ? mapped[1]! : a;
}

/** One `X-Forwarded-For` entry as an address: `1.2.3.4`, `2001:db8::1`, `[2001:db8::1]`, with a `:port` after IPv4 or `]`; else null. */
function forwardedAddress(entry: string): string | null {
  const e = entry.trim();
  const bracketed = /^\[([^\]]+)\](?::(\d{1,5}))?$/.exec(e);
  const v4port = /^(\d{1,3}\.\d{1,3}\.\d{1,3}\.\d{1,3}):(\d{1,5})$/.exec(e);
  const address = bracketed ? bracketed[1]! : v4port ? v4port[1]! : e;
  const port = bracketed ? bracketed[2] : v4port?.[2];
  if (isIP(address) === 0 || (port !== undefined && Number(port) > 65535)) return null;
  if (bracketed && isIP(address) !== 6) return null;
  return normalizeAddress(address);
}

/** Splits `10.0.0.1, 192.168.0.0/16, fd00::/8` into entries; a malformed one throws with its text. */
export function parseTrustedProxies(text: string | undefined, source: string): string[] {
  if (!text) return [];
  return text.split(',').map((s) => s.trim()).filter(Boolean).map((entry) => {
    const [address, bits, extra] = entry.split('/');
    const family = isIP(address ?? '');
    const max = family === 4 ? 32 : 128;
    const prefixOk = bits === undefined || (/^\d{1,3}$/.test(bits) && Number(bits) <= max);
    if (family === 0 || !prefixOk || extra !== undefined) {
      throw new Error(`${source}: "${echoInput(entry)}" is not an IP address or CIDR range (e.g. 10.0.0.1, 10.0.0.0/8, fd00::/8)`);
    }
    return entry;
  });
}

/** The trusted proxies of `parseTrustedProxies`' entries. */
export class TrustedProxies {
  private readonly list = new BlockList();
  readonly empty: boolean;

  constructor(entries: readonly string[]) {
    this.empty = entries.length === 0;
    for (const entry of entries) {
      const [address, bits] = entry.split('/');
      const normal = normalizeAddress(address!);
      const type = isIP(normal) === 4 ? 'ipv4' : 'ipv6';
      if (bits === undefined) this.list.addAddress(normal, type);
      else this.list.addSubnet(normal, Number(bits), type);
    }
  }

  has(address: string): boolean {
    if (this.empty) return false;
    const normal = normalizeAddress(address);
    const family = isIP(normal);
    return family !== 0 && this.list.check(normal, family === 4 ? 'ipv4' : 'ipv6');
  }
}

/**
 * The client of a request: its peer's address, or — when the peer is a trusted proxy — the
 * right-most `X-Forwarded-For` address that is not a trusted proxy (the left-most, when all are).
 * An entry that is not an address, met before the client is found, makes the header unreadable:
 * the peer's address then, never an error.
 */
export function clientAddress(peer: string | undefined, forwardedFor: string | string[] | undefined, trusted: TrustedProxies): string {
  if (!peer) return 'unknown';
  const self = normalizeAddress(peer);
  if (!trusted.has(self) || forwardedFor === undefined) return self;
  const entries = (Array.isArray(forwardedFor) ? forwardedFor.join(',') : forwardedFor).split(',');
  let client = self;
  for (let i = entries.length - 1; i >= 0; i -= 1) {
    const address = forwardedAddress(entries[i]!);
    if (address === null) return self;
    client = address;
    if (!trusted.has(address)) return address;
  }
  return client;
}
