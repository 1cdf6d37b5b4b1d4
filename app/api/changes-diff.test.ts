/**
 * The change feed's "updated" rows carry their changed words (against the previous version), over
 * a data directory seeded through the real sync pipeline (e2e/seed).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { seed, type SeedManifest } from '@/e2e/seed/seed';
import type { ChangeGroup } from '@/lib/history/queries';
import { guardHeaders } from '@/lib/server/scope-header';

let manifest: SeedManifest;

beforeAll(async () => {
  const base = fs.mkdtempSync(path.join(os.tmpdir(), 'lineage-changes-diff-'));
  process.env.LINEAGE_DATA = path.join(base, 'data');
  manifest = await seed(process.env.LINEAGE_DATA, path.join(base, 'scratch'));
});

describe('GET /api/changes', () => {
  it('shows an update as its changed words, whole tokens, not the start of the memory', async () => {
    const { GET } = await import('./changes/route');
    const res = await GET(new Request(`http://localhost/api/changes?since=30d&agent=${manifest.agentId}&op=update`, { headers: guardHeaders(undefined) }), undefined);
    const body = (await res.json()) as { groups: ChangeGroup[] };
    const changes = body.groups.flatMap((g) => g.changes);
    const gateway = changes.find((c) => c.diff?.some((s) => s.op === 'insert' && s.text === '10.42.0.9'));
    expect(gateway, JSON.stringify(changes.map((c) => c.diff))).toBeDefined();
    expect(gateway!.diff!.filter((s) => s.op === 'delete').map((s) => s.text)).toEqual(['10.42.0.7']);
    expect(changes.every((c) => c.op !== 'update' || (c.diff?.length ?? 0) > 0)).toBe(true);
  });
});
