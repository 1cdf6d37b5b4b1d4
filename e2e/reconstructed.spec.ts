/**
 * An agent synced as the reference CLI syncs before 0.1.10 (a record-only delta: a section added to
 * MEMORY.md, every section of a daily file deleted), then looked at in the dashboard: the viewer
 * marks the rendered file "reconstructed from records", the deleted file is gone, and the API and
 * the .zip download agree.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { readSnapshot } from '@/lib/core/archive';
import { DELETED_FILE, recordOnlyDelta, standardWorkspace } from '../tests/interop/reference-archives';
import { ReferenceClient } from '../tests/interop/reference-client';
import { expect, test } from './fixtures';
import { unzip } from './unzip';

let agentId: string;

test.beforeAll(async () => {
  const dataDir = path.join(process.env.E2E_DIR!, 'data');
  const created = spawnSync('npx', ['tsx', 'lib/cli/main.ts', 'keys', 'create', '--name', 'reference-cli', '--data', dataDir], { encoding: 'utf8' });
  const key = (JSON.parse(created.stdout.trim()) as { key: string }).key;
  const client = new ReferenceClient(process.env.E2E_BASE_URL!, key);
  const { exported, bytes } = await standardWorkspace(fs.mkdtempSync(path.join(os.tmpdir(), 'lineage-e2e-ref-')));
  agentId = exported.agentId;
  expect((await client.register({ id: agentId, name: 'reference-synced', source_runtime: 'openclaw' })).created.status).toBe(201);
  expect((await client.uploadSnapshot(agentId, bytes)).final.status).toBe(201);
  const delta = await recordOnlyDelta((await readSnapshot(bytes)).records, agentId, 0);
  expect((await client.pushDelta(agentId, 0, delta)).final.status).toBe(201);
});

test('a record-only delta: the file rendered from records is marked, the deleted file is gone, API and .zip agree', async ({ page, request }) => {
  await page.goto(`/agents/${agentId}/workspace?seq=1&file=MEMORY.md`);
  await expect(page.getByTestId('file-reconstructed')).toContainText('Reconstructed from records');
  await expect(page.getByTestId('file-viewer')).toContainText('The gateway moved to 10.20.0.9.');
  const memory = page.locator('[data-testid=tree-file][data-path="MEMORY.md"]');
  await expect(memory.getByTestId('tree-file-reconstructed')).toBeVisible();
  await expect(page.locator(`[data-testid=tree-file][data-path="${DELETED_FILE}"]`)).toHaveCount(0);

  const tree = await (await request.get(`/api/agents/${agentId}/workspace?seq=1`)).json();
  expect(tree.files.find((f: { path: string }) => f.path === 'MEMORY.md')).toMatchObject({ changed_seq: 1, reconstructed: true });
  const text = await (await request.get(`/api/agents/${agentId}/workspace/file?seq=1&path=MEMORY.md`)).text();
  const zip = await unzip(Buffer.from(await (await request.get(`/api/agents/${agentId}/workspace/download?seq=1&format=zip`)).body()));
  expect(zip.get('MEMORY.md')?.toString('utf8')).toBe(text);
  expect(zip.has(DELETED_FILE)).toBe(false);

  await page.goto(`/agents/${agentId}/workspace?seq=0&file=MEMORY.md`);
  await expect(page.getByTestId('file-viewer')).toContainText('Another important thing.');
  await expect(page.getByTestId('file-reconstructed')).toHaveCount(0);
  await expect(page.locator(`[data-testid=tree-file][data-path="${DELETED_FILE}"]`)).toHaveCount(1);
});
