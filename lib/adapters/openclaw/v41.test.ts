import { mkdir, rename, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { chunkBirthId } from '@/lib/core/ids';
import type { MemoryRecord } from '@/lib/core/record';
import { openclawAdapter } from './index';
import { FIXED_CLOCK, tempDir } from './test-helpers';

const AGENT = 'a1b2c3d4-e5f6-4a7b-8c9d-0e1f2a3b4c5d';
const BUFFER = '# Working Buffer\ncreated: 2026-04-05T14:31:00+08:00\n\n## Active Task:\n- rotate keys\n';

const FILES: Record<string, string> = {
  '.alf-agent-id': AGENT,
  'MEMORY.md': '# Memory\n#tags: core\n\n## Identity\nI am Atlas.\n',
  'memory/semantic/infrastructure.md':
    '# Infrastructure\n#tags: networking, ssh\n\n## Tailscale\nNode at 100.64.0.1 #vpn\n\n## SSH\nPort 2222.\n',
  'memory/procedural/lessons-learned.md': '# Lessons\n#tags: #postmortem #errors\n\n## Backups\nAlways verify restores.\n',
  'memory/episodic/2026-04-05.md':
    '# 2026-04-05\n#tags: tasks\n\n## Deploy\nShipped v2. [decision|i=0.7]\n\nUpdated: 2026-04-05\n',
  'memory/working-buffer.md': BUFFER,
  'memory/archive/2026/03/2026-03-01.md': '# 2026-03-01\n#tags: backup\n\n## Old event\nRotated keys.\n',
  'memory/archive/2026/03/notes.md': '# Notes\n\n## Misc\nArchived note.\n',
  'memory/scripts/health-check.sh': '#!/bin/sh\nexit 0\n',
};

async function v41Workspace(): Promise<string> {
  const ws = await tempDir('openclaw-v41-');
  for (const [rel, text] of Object.entries(FILES)) {
    await mkdir(path.dirname(path.join(ws, rel)), { recursive: true });
    await writeFile(path.join(ws, rel), text);
  }
  return ws;
}

const exportWs = (workspace: string) => openclawAdapter.exportWorkspace({ workspace, persistAgentId: true, clock: FIXED_CLOCK });
const byHeading = (records: MemoryRecord[], heading: string | null, file?: string) =>
  records.find((r) => r.raw_source_format?.heading === heading && (file === undefined || r.source.origin_file === file))!;

describe('openclaw export: Memory v4.1 tiered layout', () => {
  it('turns every tier into records with type, namespace, status, tier and #tags: tags', async () => {
    const { records, raw } = await exportWs(await v41Workspace());
    const summary = (r: MemoryRecord) => ({ type: r.memory_type, ns: r.namespace, status: r.status, tags: r.tags });
    expect(summary(byHeading(records, 'Identity'))).toEqual({ type: 'semantic', ns: 'curated', status: 'active', tags: ['curated', 'core', 'tier:hot'] });
    expect(summary(byHeading(records, 'Tailscale'))).toEqual({
      type: 'semantic', ns: 'semantic', status: 'active', tags: ['semantic', 'vpn', 'networking', 'ssh', 'tier:warm'],
    });
    expect(summary(byHeading(records, 'SSH')).tags).toEqual(['semantic', 'networking', 'ssh', 'tier:warm']);
    expect(summary(byHeading(records, 'Backups'))).toEqual({
      type: 'procedural', ns: 'procedural', status: 'active', tags: ['procedural', 'postmortem', 'errors', 'tier:warm'],
    });
    const deploy = byHeading(records, 'Deploy');
    expect(summary(deploy)).toEqual({ type: 'episodic', ns: 'episodic', status: 'active', tags: ['episodic', 'decision', 'tasks', 'tier:cold'] });
    expect(deploy.temporal).toMatchObject({ created_at: '2026-04-05T00:00:00Z', observed_at: '2026-04-05T00:00:00Z' });
    const old = byHeading(records, 'Old event');
    expect(summary(old)).toEqual({ type: 'episodic', ns: 'episodic', status: 'archived', tags: ['episodic', 'backup', 'tier:archive'] });
    expect(old.temporal.observed_at).toBe('2026-03-01T00:00:00Z');
    const misc = byHeading(records, 'Misc');
    expect(misc).toMatchObject({ status: 'archived', tags: ['episodic', 'tier:archive'] });
    expect(misc.temporal.observed_at).toBeUndefined();
    expect(raw.has('memory/scripts/health-check.sh')).toBe(true);
    expect(records).toHaveLength(8);
  });

  it('keeps the reference treatment and id for a reference-matched buffer file', async () => {
    const { records } = await exportWs(await v41Workspace());
    const buffer = records.find((r) => r.source.origin_file === 'memory/working-buffer.md')!;
    expect(buffer).toMatchObject({ namespace: 'workspace', memory_type: 'semantic', content: BUFFER, tags: ['workspace', 'tier:buffer'] });
    expect(buffer.id).toBe(chunkBirthId({ runtime: 'openclaw', agentId: AGENT, originFile: 'memory/working-buffer.md', content: BUFFER, occurrence: 0 }));
  });

  it('uses content-v1 birth ids with the origin file for tier records', async () => {
    const { records } = await exportWs(await v41Workspace());
    const ssh = byHeading(records, 'SSH');
    expect(ssh.id).toBe(
      chunkBirthId({ runtime: 'openclaw', agentId: AGENT, originFile: 'memory/semantic/infrastructure.md', content: ssh.content, occurrence: 0 }),
    );
  });

  it('keeps an episodic fact findable after the TTL archiver moves its file', async () => {
    const ws = await v41Workspace();
    await mkdir(path.join(ws, 'memory/archive/2026/04'), { recursive: true });
    await rename(path.join(ws, 'memory/episodic/2026-04-05.md'), path.join(ws, 'memory/archive/2026/04/2026-04-05.md'));
    const { records } = await exportWs(ws);
    const moved = records.filter((r) => r.content.includes('Shipped v2.'));
    expect(moved).toHaveLength(1);
    expect(moved[0]).toMatchObject({
      status: 'archived',
      source: { origin_file: 'memory/archive/2026/04/2026-04-05.md' },
      temporal: { created_at: '2026-04-05T00:00:00Z' },
    });
    expect(moved[0]!.tags).toContain('tier:archive');
  });

  it('does not tag MEMORY.md or the buffer as tiers outside the v4.1 layout', async () => {
    const ws = await tempDir();
    await mkdir(path.join(ws, 'memory'));
    await writeFile(path.join(ws, 'MEMORY.md'), '## A\nfact #x\n');
    await writeFile(path.join(ws, 'memory/working-buffer.md'), 'scratch\n');
    const { records } = await exportWs(ws);
    expect(records).toHaveLength(2);
    expect(records.map((r) => r.tags)).toEqual(expect.arrayContaining([['curated', 'x'], ['workspace']]));
  });
});
