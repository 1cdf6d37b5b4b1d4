import { isIP } from 'node:net';

/** Clients followed at most (each holds at most `max` times): past it the longest-quiet one is forgotten. */
export const MAX_TRACKED_CLIENTS = 10_000;

/** The eight 16-bit groups of an IPv6 address (an IPv4 tail as two groups), or null. */
function ipv6Groups(address: string): number[] | null {
  let text = address;
  const v4 = /(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(text);
  if (v4) {
    const [a, b, c, d] = v4.slice(1).map(Number) as [number, number, number, number];
    text = `${text.slice(0, v4.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const halves = text.split('::');
  if (halves.length > 2) return null;
  const part = (s: string | undefined) => (s ? s.split(':').map((g) => parseInt(g, 16)) : []);
  const head = part(halves[0]);
  const tail = part(halves[1]);
  const groups = halves.length === 2 ? [...head, ...Array<number>(8 - head.length - tail.length).fill(0), ...tail] : head;
  return groups.length === 8 && groups.every((g) => Number.isInteger(g) && g >= 0 && g <= 0xffff) ? groups : null;
}

/**
 * The bucket a client address counts in: an IPv4 address itself, an IPv6 address its /64 (one
 * host is commonly handed a whole /64, and would otherwise have 2^64 buckets to spread over).
 */
export function clientBucket(client: string): string {
  if (isIP(client) !== 6) return client;
  const groups = ipv6Groups(client.replace(/%.*$/, ''));
  return groups ? `${groups.slice(0, 4).map((g) => g.toString(16)).join(':')}::/64` : client;
}

/**
 * Sign-in attempts per client address (IPv6: per /64): at most `max` in a sliding `windowMs`.
 * Guessing a 256-bit key is hopeless anyway; this keeps a script from hammering the sign-in form
 * and the database behind it.
 *
 * Memory is bounded however many addresses come (a spray of forwarded or IPv6 addresses): clients
 * are kept in the order of their last counted attempt, those idle for a whole window are forgotten
 * from the front, and past `maxClients` the longest-quiet one is forgotten too — a client locked out
 * may then start over, which costs an attacker `maxClients` fresh addresses each time.
 */
export class SignInRateLimit {
  private readonly attempts = new Map<string, number[]>();

  constructor(private readonly max = 10, private readonly windowMs = 5 * 60 * 1000, private readonly maxClients = MAX_TRACKED_CLIENTS) {}

  /** Clients followed now. */
  get clients(): number {
    return this.attempts.size;
  }

  /** Records an attempt; returns 0 when allowed, else the seconds until the next one is. */
  attempt(client: string, now: Date): number {
    const t = now.getTime();
    const key = clientBucket(client);
    this.forgetIdle(t);
    const recent = (this.attempts.get(key) ?? []).filter((at) => at > t - this.windowMs);
    if (recent.length >= this.max) {
      this.attempts.set(key, recent);
      return Math.max(1, Math.ceil((recent[0]! + this.windowMs - t) / 1000));
    }
    recent.push(t);
    // To the back: the map stays in the order of each client's last counted attempt.
    this.attempts.delete(key);
    for (const oldest of this.attempts.keys()) {
      if (this.attempts.size < this.maxClients) break;
      this.attempts.delete(oldest);
    }
    this.attempts.set(key, recent);
    return 0;
  }

  /** Forgets the clients at the front whose last attempt is out of the window (the rest are later). */
  private forgetIdle(t: number): void {
    for (const [client, times] of this.attempts) {
      if ((times[times.length - 1] ?? 0) > t - this.windowMs) break;
      this.attempts.delete(client);
    }
  }
}
