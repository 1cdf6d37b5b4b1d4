/**
 * `lineage serve` refuses to expose data with no key to sign in with, and parses the flags that
 * control sign-in and hosts. Sessions and the sign-in rate limit as units.
 */
import { spawnSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { resolveServeSettings } from '@/lib/server/serve-options';
import { SessionSigner, parseCookies, sessionCookie } from '@/lib/server/session';
import { SignInRateLimit } from '@/lib/server/session-rate-limit';
import { safeNextPath } from '@/lib/server/sign-in';
import { isLoopbackAddress, hostnameOf } from '@/lib/server/hosts';
import { tempDataDir } from './harness';

const ENTRY = path.resolve(process.cwd(), 'lib/cli/main.ts');

function serve(args: string[], env: Record<string, string> = {}) {
  return spawnSync(process.execPath, ['--import', 'tsx', ENTRY, 'serve', '--no-ui', '--port', '0', ...args], {
    env: { ...process.env, ...env }, encoding: 'utf8', timeout: 60_000,
  });
}

describe('serve with nobody able to sign in', () => {
  it('--host 0.0.0.0 without keys refuses to start and says how to create an admin key', () => {
    const dataDir = tempDataDir();
    try {
      const run = serve(['--host', '0.0.0.0', '--data', dataDir]);
      expect(run.status).not.toBe(0);
      const out = JSON.parse(run.stdout.trim().split('\n').pop()!);
      expect(out).toMatchObject({ ok: false, code: 'no_admin_key' });
      expect(out.error).toMatch(/0\.0\.0\.0/);
      expect(out.hint).toContain('lineage keys create --admin');
      expect(run.stderr).not.toMatch(/listening on/);
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  }, 90_000);

  it('--auth required on loopback without keys refuses too (LINEAGE_AUTH=required alike)', () => {
    const dataDir = tempDataDir();
    try {
      for (const run of [serve(['--auth', 'required', '--data', dataDir]), serve(['--data', dataDir], { LINEAGE_AUTH: 'required' })]) {
        expect(run.status).not.toBe(0);
        expect(JSON.parse(run.stdout.trim().split('\n').pop()!)).toMatchObject({ ok: false, code: 'no_admin_key' });
      }
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  }, 90_000);
});

describe('serve settings for sign-in and hosts', () => {
  it('auth, allowed hosts and public URL from flags or environment; bad values named', () => {
    expect(resolveServeSettings({}, {})).toMatchObject({ auth: 'auto', allowedHosts: [], publicUrl: undefined });
    expect(resolveServeSettings({}, { LINEAGE_AUTH: 'required', LINEAGE_ALLOWED_HOSTS: 'a.example, b.example:3000', LINEAGE_PUBLIC_URL: 'https://x.example/path' }))
      .toMatchObject({ auth: 'required', allowedHosts: ['a.example', 'b.example:3000'], publicUrl: 'https://x.example' });
    expect(resolveServeSettings({ auth: 'required', allowedHosts: 'c.example', publicUrl: 'http://c.example:8080' }, { LINEAGE_AUTH: 'auto' }))
      .toMatchObject({ auth: 'required', allowedHosts: ['c.example'], publicUrl: 'http://c.example:8080' });
    expect(resolveServeSettings({}, { LINEAGE_SESSION_DAYS: '1' }).sessionTtlSeconds).toBe(86_400);
    expect(() => resolveServeSettings({ auth: 'maybe' }, {})).toThrow(/--auth/);
    expect(() => resolveServeSettings({}, { LINEAGE_PUBLIC_URL: 'ftp://x' })).toThrow(/LINEAGE_PUBLIC_URL/);
    expect(() => resolveServeSettings({}, { LINEAGE_ALLOWED_HOSTS: 'a b' })).toThrow(/LINEAGE_ALLOWED_HOSTS/);
  });

  it('loopback binds and Host names', () => {
    for (const h of ['127.0.0.1', '127.1.2.3', 'localhost', '::1', '[::1]']) expect(isLoopbackAddress(h), h).toBe(true);
    for (const h of ['0.0.0.0', '::', '192.168.1.2', 'example.com']) expect(isLoopbackAddress(h), h).toBe(false);
    expect(hostnameOf('Example.COM:3000')).toBe('example.com');
    expect(hostnameOf('[::1]:3000')).toBe('::1');
    expect(hostnameOf('a@b')).toBeNull();
  });
});

describe('sessions', () => {
  const signer = new SessionSigner(Buffer.alloc(32, 1));
  const now = new Date('2026-06-01T00:00:00Z');
  const keyId = '0b5c7d1e-1111-4222-8333-444455556666';

  it('a cookie names its key until it expires; a forged or altered one names nothing', () => {
    const value = signer.issue(keyId, now, 7 * 86_400);
    expect(signer.verify(value, now)).toMatchObject({ keyId });
    expect(signer.verify(value, new Date(now.getTime() + 7 * 86_400_000 - 1000))).not.toBeNull();
    expect(signer.verify(value, new Date(now.getTime() + 7 * 86_400_000))).toBeNull();
    expect(new SessionSigner(Buffer.alloc(32, 2)).verify(value, now)).toBeNull();
    const other = '0b5c7d1e-1111-4222-8333-444455556667';
    expect(signer.verify(value.replace(keyId, other), now)).toBeNull();
    const [, , , exp] = value.split('.');
    expect(signer.verify(value.replace(`.${exp}.`, `.${Number(exp) + 1000}.`), now)).toBeNull();
  });

  it('the cookie is HttpOnly, SameSite=Lax, 7 days, Secure only when asked', () => {
    expect(sessionCookie('v', 604_800, false)).toBe('lineage_session=v; Path=/; HttpOnly; SameSite=Lax; Max-Age=604800');
    expect(sessionCookie('v', 604_800, true)).toBe('__Host-lineage_session=v; Path=/; HttpOnly; SameSite=Lax; Max-Age=604800; Secure');
    expect(parseCookies('a=1; lineage_session=x.y; b=2').get('lineage_session')).toBe('x.y');
  });

  it('sign-in attempts are limited per client', () => {
    const limit = new SignInRateLimit(3, 60_000);
    for (let i = 0; i < 3; i += 1) expect(limit.attempt('1.1.1.1', now)).toBe(0);
    expect(limit.attempt('1.1.1.1', now)).toBeGreaterThan(0);
    expect(limit.attempt('2.2.2.2', now)).toBe(0);
    expect(limit.attempt('1.1.1.1', new Date(now.getTime() + 60_001))).toBe(0);
  });

  it('after sign-in only same-site paths are followed', () => {
    expect(safeNextPath('/agents/x?y=1')).toBe('/agents/x?y=1');
    for (const bad of ['https://evil.example', '//evil.example', '/\\evil.example', 'agents', '', null, '/login?next=/']) expect(safeNextPath(bad)).toBe('/');
    // As a browser reads a Location: tabs and line breaks dropped, `\\` a slash, dot segments resolved.
    for (const bad of ['/\t/evil.example', '/\n/evil.example', '/\t\\evil.example', '/.//evil.example', '/./login']) expect(safeNextPath(bad), JSON.stringify(bad)).toBe('/');
    expect(safeNextPath('/agents/\nx?y=1 2')).toBe('/agents/x?y=1%202');
    expect(safeNextPath('/search?q=café#top')).toBe('/search?q=caf%C3%A9#top');
  });
});
