/**
 * Sign-in in a real browser, against `lineage serve --auth required` (e2e/auth-server.ts): every page
 * sends an anonymous visitor to /login; a key signs in (HttpOnly, SameSite=Lax cookie, 7 days); a
 * tenant sees only its own agents, another's agent is a 404; an admin sees all; sign-out ends it.
 */
import { expect } from '@playwright/test';
import { authTest as test } from './auth-server';


async function signIn(page: import('@playwright/test').Page, key: string): Promise<void> {
  await page.getByTestId('login-key').fill(key);
  await page.getByTestId('login-submit').click();
}

test('an anonymous visitor is sent to /login; a key signs in and back to the page asked for', async ({ page, auth }) => {
  await page.goto(`${auth.url}/agents/${auth.agentId}/workspace`);
  await expect(page).toHaveURL(`${auth.url}/login?next=${encodeURIComponent(`/agents/${auth.agentId}/workspace`)}`);
  await expect(page.getByTestId('login-page')).toBeVisible();
  // No search box on the sign-in page: a key typed into it would go into the URL (/search?q=alf_sk_…).
  await expect(page.getByTestId('login-key')).toBeVisible();
  await expect(page.getByTestId('global-search')).toHaveCount(0);
  await expect(page.getByRole('link', { name: 'Search' })).toHaveCount(0);

  await signIn(page, 'alf_sk_not-a-key');
  await expect(page.getByTestId('login-error')).toBeVisible();

  await signIn(page, auth.ownerKey);
  await expect(page).toHaveURL(`${auth.url}/agents/${auth.agentId}/workspace`);
  await expect(page.getByTestId('tree-file').first()).toBeVisible();
  await expect(page.getByTestId('global-search')).toBeVisible();
  const [cookie] = await page.context().cookies(auth.url);
  expect(cookie).toMatchObject({ name: 'lineage_session', httpOnly: true, sameSite: 'Lax', secure: false, path: '/' });
  const days = (cookie!.expires * 1000 - Date.now()) / 86_400_000;
  expect(days).toBeGreaterThan(6.9);
  expect(days).toBeLessThanOrEqual(7);

  await page.goto(auth.url);
  await expect(page.getByTestId('fleet-row')).toHaveCount(1);
  const before = await page.context().cookies(auth.url);
  await page.getByTestId('sign-out').click();
  await expect(page).toHaveURL(/\/login\?signed_out=1$/);
  expect(await page.context().cookies(auth.url)).toEqual([]);
  await page.goto(auth.url);
  await expect(page).toHaveURL(/\/login\?next=%2F$/);
  // A copy of the cookie taken before sign-out is dead too: sign-out ended the session on the server.
  await page.context().addCookies(before);
  await page.goto(auth.url);
  await expect(page).toHaveURL(/\/login\?next=%2F$/);
});

test('another tenant sees none of the owner\'s agents and gets a 404 for its pages; an admin sees it', async ({ page, auth }) => {
  await page.goto(`${auth.url}/login`);
  await signIn(page, auth.otherKey);
  await expect(page.getByTestId('fleet-page')).toBeVisible();
  await expect(page.getByTestId('fleet-row')).toHaveCount(0);
  const res = await page.goto(`${auth.url}/agents/${auth.agentId}`);
  expect(res?.status()).toBe(404);
  expect((await page.request.get(`${auth.url}/api/agents/${auth.agentId}/workspace`)).status()).toBe(404);
  await page.getByTestId('sign-out').click();

  await signIn(page, auth.adminKey);
  await expect(page.getByTestId('fleet-row')).toHaveCount(1);
  expect((await page.goto(`${auth.url}/agents/${auth.agentId}`))?.status()).toBe(200);
});

test('scripts use Authorization: Bearer on /api/*; without it they get a 401', async ({ playwright, auth }) => {
  const api = await playwright.request.newContext();
  expect((await api.get(`${auth.url}/api/agents`)).status()).toBe(401);
  const mine = await api.get(`${auth.url}/api/agents`, { headers: { authorization: `Bearer ${auth.ownerKey}` } });
  expect(mine.status()).toBe(200);
  expect(((await mine.json()) as { id: string }[]).map((a) => a.id)).toEqual([auth.agentId]);
  await api.dispose();
});
