/**
 * Sign-in attempts per client address: at most `max` in a sliding `windowMs`. Guessing a
 * 256-bit key is hopeless anyway; this keeps a script from hammering the sign-in form and
 * the database behind it.
 */
export class SignInRateLimit {
  private readonly attempts = new Map<string, number[]>();

  constructor(private readonly max = 10, private readonly windowMs = 5 * 60 * 1000) {}

  /** Records an attempt; returns 0 when allowed, else the seconds until the next one is. */
  attempt(client: string, now: Date): number {
    const t = now.getTime();
    const recent = (this.attempts.get(client) ?? []).filter((at) => at > t - this.windowMs);
    if (recent.length >= this.max) {
      this.attempts.set(client, recent);
      return Math.max(1, Math.ceil((recent[0]! + this.windowMs - t) / 1000));
    }
    recent.push(t);
    this.attempts.set(client, recent);
    if (this.attempts.size > 10_000) this.forgetIdle(t);
    return 0;
  }

  private forgetIdle(t: number): void {
    for (const [client, times] of this.attempts) if (times.every((at) => at <= t - this.windowMs)) this.attempts.delete(client);
  }
}
