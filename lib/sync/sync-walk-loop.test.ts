/**
 * The case found by an independent check: `memory/loop -> ..` in an OpenClaw workspace made a sync
 * upload the root's files again under `memory/loop/`, `.alf-agent-id` among them, which a restore
 * then wrote back as a file. A sync now leaves the loop out and says so once, on each sync that
 * meets it; a restore of what it uploaded has no `memory/loop`.
 */
import { symlink } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { localTarget } from './local-target';
import { restoreAgent } from './restore';
import { syncWorkspace, type StateLayout } from './sync';
import { makeSandbox, readTree, steppingClock } from './testing/workspace';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const fn of cleanups.splice(0)) await fn();
});

describe('a sync over a symlinked directory leading back up the workspace', () => {
  it.each(['store', 'alf'] as StateLayout[])('OpenClaw (%s layout): memory/loop -> .. is not uploaded and is warned of once', async (layout) => {
    const sb = await makeSandbox('lineage-loop-');
    cleanups.push(sb.cleanup);
    const clock = steppingClock();
    const target = localTarget(sb.dataDir, clock);
    const alfHome = path.join(sb.alfHome, '.alf');
    const lines: string[] = [];
    await sb.write('MEMORY.md', '# Memory\n\n## Owner\nDana owns billing.\n');
    await sb.write('memory/2026-11-01.md', '## Standup\nShipped the walk fix.\n');
    await symlink('..', path.join(sb.workspace, 'memory', 'loop'));
    const sync = () => syncWorkspace({ runtime: 'openclaw', workspace: sb.workspace, target, alfHome, clock, layout, log: (l) => lines.push(l) });

    const first = await sync();
    const loopWarnings = (first.warnings ?? []).filter((w) => w.startsWith('memory/loop '));
    expect(loopWarnings, JSON.stringify(first.warnings)).toEqual([expect.stringContaining('memory/loop is a symbolic link to a directory that holds it')]);
    expect(lines.filter((l) => l.startsWith('warning: memory/loop '))).toHaveLength(1);

    const out = path.join(sb.root, 'restored');
    await restoreAgent({ runtime: 'openclaw', target, agentId: first.agent.alf_agent_id, out, replace: false, alfHome, clock });
    const restored = await readTree(out, []);
    expect([...restored.keys()].filter((rel) => rel.startsWith('memory/loop'))).toEqual([]);
    expect([...restored.keys()].sort()).toEqual(['.alf-agent-id', '.alf-synced.json', 'MEMORY.md', 'memory/2026-11-01.md']);
  });
});
