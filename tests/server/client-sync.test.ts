import fs from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { httpTarget } from '@/lib/sync/http-target';
import { restoreAgent } from '@/lib/sync/restore';
import { syncWorkspace } from '@/lib/sync/sync';
import { makeSandbox, readTree, steppingClock } from '@/lib/sync/testing/workspace';
import { startTestServer, type TestServer } from './harness';

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer();
});
afterAll(() => t.close());

describe('lineage sync/restore --server: the client speaks the protocol', () => {
  it('registers, uploads a snapshot then deltas, restores byte-exact, and a copied home behind by its own upload adopts it', async () => {
    const sb = await makeSandbox('lineage-client-');
    try {
      const clock = steppingClock();
      const target = httpTarget({ baseUrl: `${t.url}/v1`, apiKey: t.keyA });
      const sync = (alfHome = sb.alfHome) => syncWorkspace({ runtime: 'openclaw', workspace: sb.workspace, target, alfHome, clock });
      await sb.write('MEMORY.md', '# M\n\n## Gateway\nThe gateway is 10.20.0.5.\n');
      const first = await sync();
      expect(first).toMatchObject({ sequence: 0, delta: false });
      const v0 = await readTree(sb.workspace);

      await fs.cp(sb.alfHome, path.join(sb.root, 'other-home'), { recursive: true });
      await sb.write('MEMORY.md', '# M\n\n## Gateway\nThe gateway is 10.20.0.9.\n');
      expect(await sync()).toMatchObject({ sequence: 1, delta: true, changes: { creates: 0, updates: 1, deletes: 0 } });
      expect(await sync()).toMatchObject({ sequence: 1, no_changes: true });

      await sb.write('memory/notes.md', 'a new note\n');
      // The copied home is behind by this machine's own upload (the workspace recorded its sha256):
      // adopted, then the new note goes on top. A foreign entry's 409 is tests/server/client-recover.test.ts's.
      expect(await sync(path.join(sb.root, 'other-home'))).toMatchObject({ sequence: 2, recovered: true, changes: { creates: 1, updates: 0, deletes: 0 } });

      const out = path.join(sb.root, 'restored');
      const restored = await restoreAgent({ runtime: 'openclaw', target, agentId: first.agent.alf_agent_id, atSequence: 0, out, replace: false, alfHome: sb.alfHome, clock });
      expect(restored).toMatchObject({ sequence: 0, action: 'initialize', applied: true });
      expect(await readTree(out)).toEqual(v0);

      // Another tenant's key sees nothing of this agent.
      const stranger = httpTarget({ baseUrl: t.url, apiKey: t.keyB });
      await expect(stranger.fetchRestore(first.agent.alf_agent_id)).rejects.toMatchObject({ code: 'agent_not_found' });

      // A restore the server refuses is the restore's failure, not a sync's upload (the 400 of a sequence past the latest).
      await expect(target.fetchRestore(first.agent.alf_agent_id, 99)).rejects.toMatchObject({
        code: 'restore_incomplete',
        message: "restore failed (HTTP 400): up_to_sequence 99 exceeds agent's latest sequence 2",
        hint: expect.stringContaining('nothing was written'),
      });
      // A registration the server refuses (a name of nothing visible) is the registration's.
      await expect(target.ensureAgent({ id: '0a0b0c0d-0000-4000-8000-000000000001', name: '\u200b', runtime: 'openclaw' })).rejects.toMatchObject({
        code: 'registration_failed',
        message: expect.stringContaining('agent name is blank'),
        hint: expect.stringContaining('nothing was uploaded'),
      });
    } finally {
      await sb.cleanup();
    }
  });
});
