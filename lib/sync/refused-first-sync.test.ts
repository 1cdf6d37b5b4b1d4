/**
 * A first sync refused for what the workspace holds (a NUL character in a memory, which no ledger
 * stores; a memory over the readers' 16 MiB line limit) leaves the target as it was: the agent is
 * not registered there — no empty agent on the server's list or the dashboard. The refusal comes
 * before anything is sent, whichever the target; once fixed, the next sync registers the agent and
 * uploads its first snapshot.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import Database from 'better-sqlite3';
import { seedBrainDb } from '@/lib/adapters/zeroclaw/test-support';
import { AlfApiClient } from '@/lib/client/alf-api';
import { startTestServer } from '@/tests/server/harness';
import { REFUSED_UPLOAD_HINT } from './errors';
import { httpTarget } from './http-target';
import { localTarget } from './local-target';
import { MAX_RECORD_LINE_BYTES, TOO_LARGE_HINT } from './record-size';
import { syncWorkspace } from './sync';
import type { SyncTarget } from './target';
import { syncRefusal } from './testing/refusals';
import { makeSandbox, steppingClock } from './testing/workspace';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const fn of cleanups.splice(0)) await fn();
});

const NUL_MEMORY = '# Memory\n\n## Owner\nDana \u0000 owns billing.\n';
const CLEAN_MEMORY = '# Memory\n\n## Owner\nDana owns billing.\n';
const HUGE_MEMORY = `# Memory\n\n## Owner\nDana owns billing.\n## Huge\n${'x'.repeat(MAX_RECORD_LINE_BYTES + 1)}\n`;

/** The agents a data directory's ledger holds, by id (read beside the target's own connection). */
function localAgents(dataDir: string): string[] {
  const db = new Database(path.join(dataDir, 'lineage.db'), { readonly: true });
  try {
    return (db.prepare('SELECT id FROM agents ORDER BY id').all() as { id: string }[]).map((row) => row.id);
  } finally {
    db.close();
  }
}

/** A sandbox whose workspace holds `MEMORY.md`, and the sync of it to `target`. */
async function openclawWorkspace(target: SyncTarget, memory: string) {
  const sb = await makeSandbox();
  cleanups.push(sb.cleanup);
  const clock = steppingClock();
  await sb.write('MEMORY.md', memory);
  const sync = () => syncWorkspace({ runtime: 'openclaw', workspace: sb.workspace, target, alfHome: path.join(sb.alfHome, '.alf'), clock });
  return { sb, sync };
}

describe('a refused first sync registers no agent', () => {
  it('local target: a NUL in an OpenClaw memory, a memory over 16 MiB, a NUL in a ZeroClaw memory — the data directory\'s agents as they were; fixed, the agent is registered and synced at 0', async () => {
    // A data directory that already holds an agent: the refused syncs leave it exactly that.
    const data = await makeSandbox();
    cleanups.push(data.cleanup);
    const clock = steppingClock();
    const target = localTarget(data.dataDir, clock);
    const other = await openclawWorkspace(target, CLEAN_MEMORY);
    expect((await other.sync()).sequence).toBe(0);
    const before = localAgents(data.dataDir);
    expect(before).toHaveLength(1);

    const nul = await openclawWorkspace(target, NUL_MEMORY);
    const refused = await syncRefusal(nul.sync);
    expect(refused.code).toBe('sync_upload_failed');
    expect(refused.message).toMatch(/^refused: record 1: content holds a NUL character \(U\+0000\), which a memory may not contain \(the record's id [0-9a-f-]{36}, file "MEMORY\.md" lines 3-4\)$/);
    expect(refused.hint).toBe(REFUSED_UPLOAD_HINT);
    expect(localAgents(data.dataDir)).toEqual(before);

    const huge = await openclawWorkspace(target, HUGE_MEMORY);
    const tooLarge = await syncRefusal(huge.sync);
    expect(tooLarge.message).toMatch(/^a memory is too large to sync: .*file "MEMORY\.md" lines 5-6\)$/);
    expect(tooLarge.hint).toBe(TOO_LARGE_HINT);
    expect(localAgents(data.dataDir)).toEqual(before);

    // A store the export reads whole (no slots, no client-state store): the same.
    const zc = await makeSandbox('lineage-zc-');
    cleanups.push(zc.cleanup);
    const zcAgent = 'aaaaaaaa-0000-4000-8000-00000000000a';
    await seedBrainDb({
      workspace: zc.workspace, agents: [{ id: zcAgent, alias: 'scout', created_at: '2026-05-01T00:00:00Z' }],
      rows: [{ id: '10000000-0000-4000-8000-000000000001', key: 'gateway', content: 'The gateway is \u0000', agent_id: zcAgent, created_at: '2026-05-01T10:00:00Z', updated_at: '2026-05-01T10:00:00Z' }],
    });
    const zcRefused = await syncRefusal(() => syncWorkspace({ runtime: 'zeroclaw', workspace: zc.workspace, runtimeAgent: 'scout', target, alfHome: path.join(zc.alfHome, '.alf'), clock }));
    expect(zcRefused.message).toMatch(/content holds a NUL character .*key "gateway"\)$/);
    expect(localAgents(data.dataDir)).toEqual(before);

    // Fixed, the next sync is a first sync as if the refused one had never run.
    await nul.sb.write('MEMORY.md', CLEAN_MEMORY);
    expect(await nul.sync()).toMatchObject({ ok: true, sequence: 0, delta: false });
    const nulAgent = fs.readFileSync(path.join(nul.sb.workspace, '.alf-agent-id'), 'utf8').trim();
    expect(localAgents(data.dataDir)).toEqual([...before, nulAgent].sort());
  }, 120_000);

  it('a fresh data directory: a refused first sync does not even create it', async () => {
    const data = await makeSandbox();
    cleanups.push(data.cleanup);
    const { sync } = await openclawWorkspace(localTarget(data.dataDir, steppingClock()), NUL_MEMORY);
    await syncRefusal(sync);
    expect(fs.existsSync(data.dataDir)).toBe(false);
  });

  it('HTTP target: a NUL, and a memory over 16 MiB — the server lists no agent for the key; fixed, the agent is registered and synced at 0', async () => {
    const server = await startTestServer();
    cleanups.push(server.close);
    const target = httpTarget({ baseUrl: server.url, apiKey: server.keyA });
    const listed = async () => (await new AlfApiClient({ baseUrl: server.url, apiKey: server.keyA }).listAgents()).map((agent) => agent.id);

    const nul = await openclawWorkspace(target, NUL_MEMORY);
    const refused = await syncRefusal(nul.sync);
    expect(refused.code).toBe('sync_upload_failed');
    expect(refused.message).toMatch(/^refused: record 1: content holds a NUL character .*file "MEMORY\.md" lines 3-4\)$/);
    expect(refused.hint).toBe(REFUSED_UPLOAD_HINT);
    expect(await listed()).toEqual([]);

    const huge = await openclawWorkspace(target, HUGE_MEMORY);
    expect((await syncRefusal(huge.sync)).hint).toBe(TOO_LARGE_HINT);
    expect(await listed()).toEqual([]);

    await nul.sb.write('MEMORY.md', CLEAN_MEMORY);
    expect(await nul.sync()).toMatchObject({ ok: true, sequence: 0, delta: false });
    expect(await listed()).toEqual([fs.readFileSync(path.join(nul.sb.workspace, '.alf-agent-id'), 'utf8').trim()]);
  }, 120_000);
});
