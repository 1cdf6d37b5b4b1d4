import fs from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { getRecordLineage, getRecordsAt, searchFirstAppearance } from '@/lib/history/queries';
import { openLedger } from '@/lib/ledger';
import { localTarget } from './local-target';
import { syncWorkspace } from './sync';
import { makeSandbox, steppingClock } from './testing/workspace';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const fn of cleanups.splice(0)) await fn();
});

/** An OpenClaw Memory v4.1 workspace: hot, warm, cold, buffer tiers. */
const FILES: Record<string, string> = {
  'MEMORY.md': '# MEMORY\n\n## Now\nMigrating the queue to Redis Streams.\n',
  'memory/semantic/infrastructure.md': '# Infrastructure\n#tags: networking, gateway\n\n## Gateway\nLAN gateway: 10.20.0.5.\n',
  'memory/procedural/lessons-learned.md': '# Lessons\n#tags: postmortem\n\n## Never deploy on Fridays\nThe 2026-10-30 outage.\n',
  'memory/episodic/2026-10-01.md': '# 2026-10-01\n\n## Webhook replay\nReplayed evt-00012-a1b2c3 after the outage.\n\nUpdated: 2026-10-01\n',
  'memory/working-buffer.md': '# Working Buffer\ncreated: 2026-11-01T09:00:00Z\n\n## Active Task:\n- rotate keys\n',
};

describe('OpenClaw Memory v4.1 through the sync pipeline', () => {
  it('indexes every tier, and an episodic file archived by the TTL rule keeps its facts findable', async () => {
    const sb = await makeSandbox('lineage-v41-');
    cleanups.push(sb.cleanup);
    for (const [rel, text] of Object.entries(FILES)) await sb.write(rel, text);
    const clock = steppingClock();
    const target = localTarget(sb.dataDir, clock);
    const sync = () => syncWorkspace({ runtime: 'openclaw', workspace: sb.workspace, target, alfHome: sb.alfHome, clock });
    const first = await sync();
    const agentId = first.agent.alf_agent_id;
    const ledger = openLedger(sb.dataDir);

    const live = getRecordsAt({ db: ledger.db, agentId, limit: 100 })!;
    const tiers = new Map(live.items.map((r) => [r.origin_file, r.tags.find((t: string) => t.startsWith('tier:'))]));
    expect(tiers.get('MEMORY.md')).toBe('tier:hot');
    expect(tiers.get('memory/semantic/infrastructure.md')).toBe('tier:warm');
    expect(tiers.get('memory/procedural/lessons-learned.md')).toBe('tier:warm');
    expect(tiers.get('memory/episodic/2026-10-01.md')).toBe('tier:cold');
    expect(tiers.get('memory/working-buffer.md')).toBe('tier:buffer');
    const gateway = live.items.find((r) => r.origin_file === 'memory/semantic/infrastructure.md')!;
    expect(gateway.tags).toEqual(expect.arrayContaining(['networking', 'gateway']));

    // The TTL rule moves the episodic note into archive/YYYY/MM/.
    await fs.mkdir(path.join(sb.workspace, 'memory/archive/2026/10'), { recursive: true });
    await fs.rename(path.join(sb.workspace, 'memory/episodic/2026-10-01.md'), path.join(sb.workspace, 'memory/archive/2026/10/2026-10-01.md'));
    const moved = await sync();
    expect(moved).toMatchObject({ sequence: 1, changes: { creates: 1, deletes: 1, updates: 0 } });

    const found = searchFirstAppearance({ db: ledger.db, q: 'evt-00012-a1b2c3', agentId });
    expect(found.first).toMatchObject({ sequence: 0, origin_file: 'memory/episodic/2026-10-01.md' });
    expect(found.appearances.map((a) => a.origin_file)).toEqual(['memory/archive/2026/10/2026-10-01.md']);
    const archived = getRecordsAt({ db: ledger.db, agentId, limit: 100 })!.items.find((r) => r.origin_file?.startsWith('memory/archive/'))!;
    expect(archived.status).toBe('archived');
    expect(archived.tags).toContain('tier:archive');
    const lineage = getRecordLineage({ db: ledger.db, agentId, recordId: archived.record_id })!;
    expect(lineage.moved_from).toMatchObject({ origin_file: 'memory/episodic/2026-10-01.md' });
  });
});
