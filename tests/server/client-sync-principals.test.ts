import fs from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLineageServer, type LineageServer } from '@/lib/server/http-server';
import { openStorage, storageConfigFrom } from '@/lib/storage/config';
import { httpTarget } from '@/lib/sync/http-target';
import { restoreAgent } from '@/lib/sync/restore';
import { syncWorkspace } from '@/lib/sync/sync';
import { makeSandbox, steppingClock } from '@/lib/sync/testing/workspace';
import { freshBucket, freshDatabase, scaleOutEnv } from '@/tests/engines/use-engines';
import { call, startTestServer, tempDataDir, type TestServer } from './harness';

/**
 * A workspace's principal source deleted (OpenClaw's USER.md) is a delta carrying
 * `{"principals": []}` (CONTRACT §3.2), which each backend's fold takes as "none": the agent's
 * `layer_counts` (what the dashboard's API answers) say 0 principals at the head, a restore at the
 * head writes no USER.md, and one at the earlier sequence still writes it (nothing acknowledged is
 * lost). Through a real served ingest: the embedded one (SQLite) and the scale-out one
 * (PostgreSQL + radosgw).
 */
let embedded: TestServer;
let scaleOut: { server: LineageServer; url: string; key: string };
beforeAll(async () => {
  embedded = await startTestServer();
  const [databaseUrl, { bucket, settings }] = await Promise.all([freshDatabase(), freshBucket()]);
  const storage = await openStorage(storageConfigFrom(scaleOutEnv(databaseUrl, bucket, settings)));
  const key = (await storage.createApiKey({ name: 'principals', now: new Date() })).key;
  const server = await createLineageServer({ dataDir: tempDataDir(), storage, port: 0, ui: false, log: () => undefined });
  scaleOut = { server, url: server.url, key };
}, 300_000);
afterAll(async () => {
  await scaleOut?.server.close();
  await embedded?.close();
});

describe.each(['embedded', 'scale-out'] as const)('%s: USER.md deleted, synced through the server', (backend) => {
  it('the head has no principal, the earlier sequence still has it, and the next sync is idle', async () => {
    const { url, key } = backend === 'embedded' ? { url: embedded.url, key: embedded.keyA } : scaleOut;
    const sb = await makeSandbox('lineage-client-principals-');
    try {
      const clock = steppingClock();
      const target = httpTarget({ baseUrl: `${url}/v1`, apiKey: key });
      const sync = () => syncWorkspace({ runtime: 'openclaw', workspace: sb.workspace, target, alfHome: sb.alfHome, clock });
      const counts = async (agentId: string) => {
        const reply = await call(`${url}/v1/agents/${agentId}`, { key });
        expect(reply.status, reply.text).toBe(200);
        return reply.json.layer_counts as { principals: number; identity: number; credentials: number };
      };
      const restoredUser = async (agentId: string, atSequence: number) => {
        const out = path.join(sb.root, `restored-${atSequence}`);
        await restoreAgent({ runtime: 'openclaw', target, agentId, atSequence, out, replace: false, alfHome: path.join(sb.root, `home-${atSequence}`), clock });
        return fs.readFile(path.join(out, 'USER.md'), 'utf8').catch(() => null);
      };

      await sb.write('MEMORY.md', '# M\n\n## Gateway\nThe gateway is 10.20.0.5.\n');
      await sb.write('SOUL.md', '# Soul\nCalm.\n');
      await sb.write('USER.md', '# User\nDana, on call Mondays.\n');
      const first = await sync();
      const agentId = first.agent.alf_agent_id;
      expect(await counts(agentId)).toEqual({ principals: 1, identity: 1, credentials: 0 });

      await sb.remove('USER.md');
      expect(await sync()).toMatchObject({ sequence: 1, delta: true, raw: { changed: 0, deleted: 1 } });
      // The principal is gone from the head; the identity stays (a delta never deletes it).
      expect(await counts(agentId)).toEqual({ principals: 0, identity: 1, credentials: 0 });
      expect(await restoredUser(agentId, 1)).toBeNull();
      expect(await restoredUser(agentId, 0)).toBe('# User\nDana, on call Mondays.\n');

      expect(await sync()).toMatchObject({ sequence: 1, no_changes: true });
      const latest = await call(`${url}/v1/agents/${agentId}`, { key });
      expect(latest.json).toMatchObject({ latest_sequence: 1 });
    } finally {
      await sb.cleanup();
    }
  });
});
