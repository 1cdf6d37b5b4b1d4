/**
 * What the export could not take as it is — a memory file that is not UTF-8 (kept as a raw file
 * only: none of its sections becomes a memory), a ZeroClaw time that is not one, a content that is
 * a BLOB — is said by `lineage sync` as `lineage export` says it: a `warnings` list in the JSON (and
 * a `warning:` line on stderr), each once. A sync with nothing to say has no `warnings` at all.
 */
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { seedBrainDb } from '@/lib/adapters/zeroclaw/test-support';
import { localTarget } from './local-target';
import { syncWorkspace, type StateLayout } from './sync';
import { makeSandbox, steppingClock } from './testing/workspace';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const fn of cleanups.splice(0)) await fn();
});

const NOT_UTF8 = 'memory/paste.md: not valid UTF-8, kept as a raw file only';

describe('a sync says what its export could not take as it is', () => {
  it.each(['store', 'alf'] as StateLayout[])('OpenClaw (%s layout): a file that is not UTF-8, on the syncs that read it', async (layout) => {
    const sb = await makeSandbox();
    cleanups.push(sb.cleanup);
    const clock = steppingClock();
    const target = localTarget(sb.dataDir, clock);
    const lines: string[] = [];
    const sync = () => syncWorkspace({ runtime: 'openclaw', workspace: sb.workspace, target, alfHome: path.join(sb.alfHome, '.alf'), clock, layout, log: (l) => lines.push(l) });
    await sb.write('MEMORY.md', '# Memory\n\n## Owner\nDana owns billing.\n');
    const clean = await sync();
    expect(clean).not.toHaveProperty('warnings');

    await sb.write('memory/paste.md', Buffer.concat([Buffer.from('## Paste\ncopied '), Buffer.from([0xff, 0xfe]), Buffer.from(' from a terminal\n')]));
    const bad = await sync();
    expect(bad).toMatchObject({ sequence: 1, warnings: [NOT_UTF8] });
    expect(lines.filter((l) => l.startsWith('warning:'))).toEqual([`warning: ${NOT_UTF8}`]);

    await sb.write('memory/paste.md', '## Paste\ncopied from a terminal\n');
    const fixed = await sync();
    expect(fixed).toMatchObject({ sequence: 2, changes: { creates: 1 } });
    expect(fixed).not.toHaveProperty('warnings');
  });

  it('ZeroClaw: a time that is not one, and a content that is a blob (exact or not)', async () => {
    const sb = await makeSandbox('lineage-zc-');
    cleanups.push(sb.cleanup);
    const agent = 'aaaaaaaa-0000-4000-8000-00000000000a';
    const at = '2026-05-01T10:00:00Z';
    const db = await seedBrainDb({
      workspace: sb.workspace, agents: [{ id: agent, alias: 'scout', created_at: at }],
      rows: [
        { id: '10000000-0000-4000-8000-000000000001', key: 'gateway', content: 'The gateway is 10.20.0.5', agent_id: agent, created_at: at, updated_at: at },
        { id: '10000000-0000-4000-8000-000000000002', key: 'when', content: 'Some day', agent_id: agent, created_at: 'last Tuesday', updated_at: at },
      ],
    });
    const open = new Database(db);
    const blob = open.prepare('INSERT INTO memories (id, key, content, category, created_at, updated_at, agent_id) VALUES (?, ?, ?, ?, ?, ?, ?)');
    blob.run('10000000-0000-4000-8000-000000000003', 'text-blob', Buffer.from('plain words'), 'core', at, at, agent);
    blob.run('10000000-0000-4000-8000-000000000004', 'byte-blob', Buffer.from([0x41, 0xff, 0x42]), 'core', at, at, agent);
    open.close();
    const clock = steppingClock();
    const out = await syncWorkspace({ runtime: 'zeroclaw', workspace: sb.workspace, runtimeAgent: 'scout', target: localTarget(sb.dataDir, clock), alfHome: path.join(sb.alfHome, '.alf'), clock });
    expect([...(out.warnings ?? [])].sort()).toEqual([
      'memories row 10000000-0000-4000-8000-000000000002: created_at "last Tuesday" is not RFC 3339; using the export time',
      'memories row 10000000-0000-4000-8000-000000000003: content is a blob of 11 bytes, not text; taken as its UTF-8 reading',
      'memories row 10000000-0000-4000-8000-000000000004: content is a blob of 3 bytes, not text; taken as its UTF-8 reading, which is not exact: the bytes that are not UTF-8 became U+FFFD',
    ]);
  });
});
