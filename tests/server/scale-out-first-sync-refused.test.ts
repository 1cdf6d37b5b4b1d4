/**
 * A first sync with `--database-url`/`--blob-url` (lib/sync/storage-target.ts) whose first snapshot
 * the storage refuses after the agent was registered — the bucket's quota reached on the real
 * radosgw: `disk_full` — leaves no empty agent in the database (none on `lineage serve`'s list or its
 * dashboard), as a sync over HTTP or to a `--data` directory does: the agent this sync registered is
 * deleted again, only if still empty. An agent registered before this sync is kept. Once the quota
 * is lifted, the same sync registers the agent and stores its snapshot at 0.
 */
import { randomUUID } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStorage, storageConfigFrom, type StorageConfig } from '@/lib/storage/config';
import type { LineageStorage } from '@/lib/storage/types';
import { storageTarget } from '@/lib/sync/storage-target';
import { syncWorkspace } from '@/lib/sync/sync';
import { syncRefusal } from '@/lib/sync/testing/refusals';
import { makeSandbox, steppingClock } from '@/lib/sync/testing/workspace';
import { setBucketQuota } from '@/tests/engines/radosgw-quota';
import { freshBucket, freshDatabase, scaleOutEnv, type S3Settings } from '@/tests/engines/use-engines';

let storage: LineageStorage;
let config: StorageConfig;
let bucket = '';
let settings: S3Settings;
const cleanups: (() => Promise<void>)[] = [];

beforeAll(async () => {
  const [url, fresh] = await Promise.all([freshDatabase(), freshBucket()]);
  ({ bucket, settings } = fresh);
  config = storageConfigFrom(scaleOutEnv(url, bucket, settings));
  storage = await openStorage(config);
}, 300_000);
afterAll(async () => {
  for (const fn of cleanups.splice(0)) await fn();
  await setBucketQuota(settings, bucket, null).catch(() => undefined);
  await storage?.close();
});

const agentIds = async () => (await storage.listAgents({})).map((a) => a.id).sort();

describe('a scale-out first sync whose snapshot the storage refuses (the bucket full)', () => {
  it('deletes the agent it registered (still empty), keeps one registered before it, and the next sync once the quota is lifted stores the snapshot at 0', async () => {
    const target = storageTarget({ open: () => openStorage(config), label: 'the scale-out storage', flags: '--database-url URL --blob-url URL' });
    cleanups.push(() => target.close());
    const sb = await makeSandbox();
    cleanups.push(sb.cleanup);
    const clock = steppingClock();
    const alfHome = path.join(sb.alfHome, '.alf');
    await sb.write('MEMORY.md', '# Memory\n\n## Owner\nDana owns billing.\n');
    const sync = (workspace = sb.workspace) => syncWorkspace({ runtime: 'openclaw', workspace, target, alfHome, clock });

    const earlier = randomUUID();
    expect(await storage.registerAgent({ id: earlier, name: 'killed before its upload', sourceRuntime: 'openclaw', tenantId: null, now: new Date('2026-11-01T09:00:00Z') })).not.toBe('exists');
    const before = await agentIds();
    expect(before).toEqual([earlier]);

    await setBucketQuota(settings, bucket, 1);
    const full = await syncRefusal(() => sync());
    expect(full.code).toBe('disk_full');
    expect(full.message).toMatch(new RegExp(`^the object store's bucket ${bucket} has no space left`));
    // The agent this sync registered is gone again.
    expect(await agentIds()).toEqual(before);

    // The first sync of the agent registered before it: refused the same, that agent is kept.
    const again = path.join(sb.root, 'again');
    await fs.mkdir(again);
    await fs.writeFile(path.join(again, 'MEMORY.md'), '# Memory\n\n## Owner\nLee owns support.\n');
    await fs.writeFile(path.join(again, '.alf-agent-id'), earlier);
    const kept = await syncRefusal(() => sync(again));
    expect(kept.code).toBe('disk_full');
    expect(await agentIds()).toEqual(before);
    expect((await storage.getAgent({ agentId: earlier }))?.latest_sequence ?? null).toBe(null);

    await setBucketQuota(settings, bucket, null);
    const taken = await sync();
    expect(taken.sequence).toBe(0);
    expect(await agentIds()).toEqual([earlier, taken.agent.alf_agent_id].sort());
    expect((await storage.listEntries({ agentId: taken.agent.alf_agent_id })).map((e) => [e.seq, e.kind])).toEqual([[0, 'snapshot']]);
  }, 180_000);
});
