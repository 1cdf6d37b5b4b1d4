import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';

const SECRET_FILE = 'server-secret';

/** Outcome of checking a signed URL. */
export type SignatureCheck = 'ok' | 'expired' | 'invalid';

/**
 * Signs and checks short-lived URLs (HMAC-SHA256 over method, path and expiry) with a
 * secret persisted in the data directory, so URLs survive a restart and are
 * unforgeable without the secret. Signed URLs are used without an Authorization header.
 */
export class UrlSigner {
  constructor(private readonly secret: Buffer) {}

  /** Loads the data directory's secret, creating it (0600) on first use. */
  static forDataDir(dataDir: string): UrlSigner {
    const file = path.join(dataDir, SECRET_FILE);
    mkdirSync(dataDir, { recursive: true });
    try {
      writeFileSync(file, randomBytes(32).toString('hex'), { flag: 'wx', mode: 0o600 });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
    const hex = readFileSync(file, 'utf8').trim();
    if (!/^[0-9a-f]{64}$/.test(hex)) throw new Error(`${file}: expected 64 hex characters`);
    return new UrlSigner(Buffer.from(hex, 'hex'));
  }

  /** `pathname?exp=…&sig=…` valid for `ttlSeconds` from `now`. */
  sign(method: string, pathname: string, ttlSeconds: number, now: Date): string {
    const exp = Math.floor(now.getTime() / 1000) + ttlSeconds;
    return `${pathname}?exp=${exp}&sig=${this.mac(method, pathname, exp)}`;
  }

  /** Checks the `exp` and `sig` query parameters of a signed URL. */
  verify(method: string, url: URL, now: Date): SignatureCheck {
    const expText = url.searchParams.get('exp') ?? '';
    const sig = url.searchParams.get('sig') ?? '';
    if (!/^\d{1,12}$/.test(expText) || !/^[0-9a-f]{64}$/.test(sig)) return 'invalid';
    const exp = Number(expText);
    const expected = Buffer.from(this.mac(method, url.pathname, exp), 'hex');
    if (!timingSafeEqual(expected, Buffer.from(sig, 'hex'))) return 'invalid';
    return exp * 1000 < now.getTime() ? 'expired' : 'ok';
  }

  private mac(method: string, pathname: string, exp: number): string {
    return createHmac('sha256', this.secret).update(`${method.toUpperCase()}\n${pathname}\n${exp}`).digest('hex');
  }
}
