/**
 * Headers and remote loads in a real browser. Every page carries a Content-Security-Policy that
 * allows no remote loads and no framing, plus nosniff and a Referrer-Policy; nothing on any page
 * trips it (Next's scripts carry the per-response nonce). Viewing a memory with a remote markdown
 * image makes no request to any other host (the browser's network log), the image being a link.
 * A file name with a right-to-left override shows the override visibly.
 */
import { expect } from '@playwright/test';
import { test as seeded } from './fixtures';
import { LineagePage } from './pages/lineage-page';
import { authTest as test, RLO_FILE, REMOTE_HEADING, TRACKER } from './auth-server';

function expectHardened(headers: Record<string, string>, what: string): void {
  const csp = headers['content-security-policy'] ?? '';
  expect(csp, what).toContain("default-src 'self'");
  expect(csp, what).toContain("img-src 'self' data: blob:");
  expect(csp, what).toContain("frame-ancestors 'none'");
  expect(csp, what).toMatch(/script-src 'self' 'nonce-[A-Za-z0-9+/=]+'/);
  expect(csp, what).not.toMatch(/https?:|\*/);
  expect(headers['x-content-type-options'], what).toBe('nosniff');
  expect(headers['referrer-policy'], what).toBe('same-origin');
}

seeded('every page sends the CSP and the other headers, and nothing on it violates the policy', async ({ page, seed }) => {
  const violations: string[] = [];
  page.on('console', (msg) => {
    if (/Content Security Policy|Refused to/i.test(msg.text())) violations.push(msg.text());
  });
  const pages = ['/', '/search?q=deploy', `/agents/${seed.agentId}`, `/agents/${seed.agentId}?tab=memories`,
    `/agents/${seed.agentId}/sequences/1`, `/agents/${seed.agentId}/workspace`, '/login', '/no-such-page'];
  for (const target of pages) {
    const res = await page.goto(target);
    expectHardened(res!.headers(), target);
    await page.waitForLoadState('networkidle');
  }
  const api = await page.request.get('/api/agents');
  expect(api.headers()['x-content-type-options']).toBe('nosniff');
  expect(violations).toEqual([]);
});


test('a memory with a remote image makes no request to another host; the image is a link', async ({ page, auth }) => {
  const requests: string[] = [];
  page.on('request', (req) => requests.push(req.url()));
  await page.goto(`${auth.url}/login`);
  await page.getByTestId('login-key').fill(auth.ownerKey);
  await page.getByTestId('login-submit').click();
  await expect(page.getByTestId('fleet-page')).toBeVisible();

  const records = await page.request.get(`${auth.url}/api/agents/${auth.agentId}/records`);
  const items = ((await records.json()) as { items: { record_id: string; heading: string | null }[] }).items;
  const remote = items.find((r) => r.heading === REMOTE_HEADING);
  expect(remote).toBeTruthy();
  const res = await page.goto(`${auth.url}/agents/${auth.agentId}/memories/${remote!.record_id}`);
  expectHardened(res!.headers(), 'memory page');
  await new LineagePage(page).show('full');
  const link = page.locator(`[data-testid=memory-markdown] a[href="${TRACKER}"]`).first();
  await expect(link).toBeVisible();
  await expect(link).toHaveText('image: from the street');
  await expect(page.locator('[data-testid=memory-markdown] img')).toHaveCount(0);
  await page.waitForLoadState('networkidle');

  const origin = new URL(auth.url).origin;
  expect(requests.length).toBeGreaterThan(0);
  expect(requests.filter((url) => new URL(url).origin !== origin)).toEqual([]);

  await page.goto(`${auth.url}/agents/${auth.agentId}/workspace`);
  const file = page.locator('[data-testid=tree-file]', { has: page.getByTestId('hidden-char') });
  await expect(file).toHaveCount(1);
  await expect(file.getByTestId('hidden-char')).toHaveText('U+202E');
  await expect(file).not.toContainText(RLO_FILE);
  expect(requests.filter((url) => new URL(url).origin !== origin)).toEqual([]);
});

test('the build assets: served before sign-in, gzipped once per process, immutable, with our ETag', async ({ page, auth }) => {
  const assets: { url: string; headers: Record<string, string> }[] = [];
  page.on('response', (res) => {
    if (new URL(res.url()).pathname.startsWith('/_next/static/')) assets.push({ url: res.url(), headers: res.headers() });
  });
  await page.goto(`${auth.url}/login`);
  await page.waitForLoadState('networkidle');
  const scripts = assets.filter((a) => /\.(js|css)$/.test(new URL(a.url).pathname));
  expect(scripts.length).toBeGreaterThan(3);
  for (const { url, headers } of scripts) {
    // static-assets.ts answers these (Next's own ETag is a weak `W/"size-mtime"`).
    expect(headers.etag, url).toMatch(/^"[\w-]{27}"$/);
    expect(headers['content-encoding'], url).toBe('gzip');
    expect(headers['cache-control'], url).toBe('public, max-age=31536000, immutable');
    expect(headers['x-content-type-options'], url).toBe('nosniff');
  }
  // The sign-in page works with them: it hydrated (the key field is a controlled React input).
  await page.getByTestId('login-key').fill(auth.ownerKey);
  await page.getByTestId('login-submit').click();
  await expect(page.getByTestId('fleet-page')).toBeVisible();
});
