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
  /** `keyId`: the API key a URL is issued to; it goes into the URL (`kid`) and its MAC, and the URL dies with the key. */
  constructor(private readonly secret: Buffer, readonly keyId: string | null = null) {}

  /** The same secret, signing URLs for one API key. */
  forKey(keyId: string): UrlSigner {
    return new UrlSigner(this.secret, keyId);
  }

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

  /** `pathname?exp=…[&kid=…]&sig=…` valid for `ttlSeconds` from `now`. */
  sign(method: string, pathname: string, ttlSeconds: number, now: Date): string {
    const exp = Math.floor(now.getTime() / 1000) + ttlSeconds;
    const kid = this.keyId ? `&kid=${this.keyId}` : '';
    return `${pathname}?exp=${exp}${kid}&sig=${this.mac(method, pathname, exp, this.keyId)}`;
  }

  /** Checks the `exp` and `sig` query parameters of a signed URL. */
  verify(method: string, url: URL, now: Date): SignatureCheck {
    const expText = url.searchParams.get('exp') ?? '';
    const sig = url.searchParams.get('sig') ?? '';
    if (!/^\d{1,12}$/.test(expText) || !/^[0-9a-f]{64}$/.test(sig)) return 'invalid';
    const exp = Number(expText);
    const kid = url.searchParams.get('kid');
    if (kid !== null && !/^[0-9a-f-]{36}$/.test(kid)) return 'invalid';
    const expected = Buffer.from(this.mac(method, url.pathname, exp, kid), 'hex');
    if (!timingSafeEqual(expected, Buffer.from(sig, 'hex'))) return 'invalid';
    return exp * 1000 < now.getTime() ? 'expired' : 'ok';
  }

  /** A key for another purpose (session cookies), derived from the same secret so one file holds it. */
  deriveKey(label: string): Buffer {
    return createHmac('sha256', this.secret).update(`derive\n${label}`).digest();
  }

  private mac(method: string, pathname: string, exp: number, kid: string | null = null): string {
    const keyPart = kid === null ? '' : `\n${kid}`;
    return createHmac('sha256', this.secret).update(`${method.toUpperCase()}\n${pathname}\n${exp}${keyPart}`).digest('hex');
  }
}
