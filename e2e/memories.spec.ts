import { expect, FACTS, test } from './fixtures';
import { AgentPage } from './pages/agent-page';

test('the memories at an earlier sequence, and a tag filter, live in the URL', async ({ page, seed }) => {
  const agent = new AgentPage(page);
  await agent.goto(seed.agentId, 'memories');
  await expect(agent.records.first()).toBeVisible();
  await expect(agent.records.getByText(FACTS.xssHeading, { exact: true })).toBeVisible();

  // The pasted snippet arrived at sequence 3: at sequence 2 it is not there yet.
  const at = page.getByTestId('memories-at');
  await at.fill('2');
  await at.press('Enter');
  await expect(page).toHaveURL(/[?&]at=2(&|$)/);
  await expect(page.getByTestId('records-total')).toContainText('live at #2');
  await expect(agent.records.getByText(FACTS.lineageHeading, { exact: true })).toBeVisible();
  await expect(agent.records.getByText(FACTS.xssHeading, { exact: true })).toHaveCount(0);

  // A tag narrows the list to that tier; the sequence stays.
  const tag = page.getByTestId('filter-tag');
  await tag.fill('tier:warm');
  await tag.press('Enter');
  await expect(page).toHaveURL(/tag=tier%3Awarm/);
  await expect(page).toHaveURL(/[?&]at=2(&|$)/);
  await expect(agent.records.getByText('Clusters', { exact: true })).toBeVisible();
  await expect(agent.records.getByText(FACTS.lineageHeading, { exact: true })).toHaveCount(0);

  await page.goBack();
  await expect(agent.records.getByText(FACTS.lineageHeading, { exact: true })).toBeVisible();
});

type Facets = Record<'memory_type' | 'namespace' | 'status' | 'file', { value: string | null; count: number }[]>;

test('the type, namespace, status and file filters each narrow the list to their records and land in the URL', async ({ page, request, seed }) => {
  const api = (await (await request.get(`/api/agents/${seed.agentId}/records`)).json()) as { total: number; facets: Facets };
  const agent = new AgentPage(page);
  await agent.goto(seed.agentId, 'memories');
  await expect(agent.records).toHaveCount(api.total);

  const cases = [
    { key: 'memory_type', attr: 'data-memory-type' },
    { key: 'namespace', attr: 'data-namespace' },
    { key: 'status', attr: 'data-status' },
    { key: 'file', attr: 'data-file' },
  ] as const;
  for (const { key, attr } of cases) {
    // The least common value, so the narrowing shows whatever the seed holds.
    const values = api.facets[key].filter((f) => f.value !== null);
    expect(values.length, `${key} has more than one value in the seed`).toBeGreaterThan(1);
    const { value, count } = values[values.length - 1]!;
    expect(count).toBeLessThan(api.total);

    await page.getByTestId(`filter-${key}`).selectOption(value!);
    await expect(page).toHaveURL(new RegExp(`[?&]${key}=${encodeURIComponent(value!).replace(/\./g, '\\.')}(&|$)`));
    await expect(agent.records).toHaveCount(count);
    expect(new Set(await agent.records.evaluateAll((els, a) => els.map((e) => e.getAttribute(a)), attr)), key).toEqual(new Set([value]));

    await page.getByTestId(`filter-${key}`).selectOption('');
    await expect(page).not.toHaveURL(new RegExp(`[?&]${key}=`));
    await expect(agent.records).toHaveCount(api.total);
  }
});

test('a shortened id keeps the full id at hand', async ({ page, seed }) => {
  const agent = new AgentPage(page);
  await agent.goto(seed.agentId, 'memories');
  const row = agent.records.first();
  const recordId = (await row.getAttribute('data-record-id'))!;
  const short = row.locator('[data-full-id]');
  await expect(short).toHaveAttribute('data-full-id', recordId);
  await expect(short).toHaveAttribute('title', recordId);
  await expect(short).toHaveText(recordId.slice(0, 8));
  expect(recordId.length).toBeGreaterThan(8);
});
