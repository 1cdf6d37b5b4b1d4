import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { MemoryRecord } from '@/lib/core/record';
import { walkFiles } from '../shared/walk';
import { openclawAdapter } from './index';
import { FIXED_CLOCK, copyFixture, snapshotOf, tempDir } from './test-helpers';

const exportWs = (workspace: string) => openclawAdapter.exportWorkspace({ workspace, persistAgentId: true, clock: FIXED_CLOCK });
const importInto = (target: string, snapshot: ReturnType<typeof snapshotOf>) =>
  openclawAdapter.importSnapshot({ snapshot, target, live: false, clock: FIXED_CLOCK });

describe('openclaw import: raw channel', () => {
  it('round-trips a workspace byte-exact, binary and non-UTF-8 files included', async () => {
    const ws = await copyFixture('community-patterns');
    await mkdir(path.join(ws, 'memory/nested'), { recursive: true });
    await writeFile(path.join(ws, 'memory/nested/blob.bin'), Buffer.from([0, 1, 2, 255, 254, 13, 10]));
    await writeFile(path.join(ws, 'memory/latin1.md'), Buffer.from([0x63, 0x61, 0x66, 0xe9, 0x0a]));
    const exported = await exportWs(ws);
    expect(exported.warnings).toEqual(['memory/latin1.md: not valid UTF-8, kept as a raw file only']);
    const target = await tempDir();
    const result = await importInto(target, snapshotOf(exported));
    expect(result.written).toEqual(['.alf-agent-id', ...[...exported.raw.keys()].sort()].sort());
    expect(await walkFiles(target)).toEqual(await walkFiles(ws));
    for (const rel of await walkFiles(ws)) {
      expect(Buffer.compare(await readFile(path.join(target, rel)), await readFile(path.join(ws, rel))), rel).toBe(0);
    }
    expect(await readFile(path.join(target, '.alf-agent-id'), 'utf8')).toBe('b118d25b-3550-590c-8e33-005a3f38f321');
  });

  it('skips runtime sidecars and control files carried by an archive', async () => {
    const exported = await exportWs(await copyFixture('minimal'));
    const snapshot = snapshotOf(exported);
    snapshot.raw.set('raw/openclaw/.alf-brain-db-schema.json', new Uint8Array([123, 125]));
    snapshot.raw.set('raw/openclaw/.alf-synced.json', new Uint8Array([123, 125]));
    snapshot.raw.set('raw/hermes/memories/MEMORY.md', new Uint8Array([120]));
    const target = await tempDir();
    const result = await importInto(target, snapshot);
    expect(result.written).toEqual(['.alf-agent-id', 'SOUL.md']);
    expect(await walkFiles(target)).toEqual(['.alf-agent-id', 'SOUL.md']);
  });

  it('rejects an unsafe raw path and writes nothing', async () => {
    const snapshot = snapshotOf(await exportWs(await copyFixture('minimal')));
    snapshot.raw.set('raw/openclaw/../escape.md', new Uint8Array([120]));
    const target = await tempDir();
    await expect(importInto(target, snapshot)).rejects.toThrow(/unsafe workspace path/);
    expect(await walkFiles(target)).toEqual([]);
  });
});

describe('openclaw import: cross-runtime reconstruction', () => {
  it('rebuilds MEMORY.md, daily files and root prose from records and layers', async () => {
    const exported = await exportWs(await copyFixture('standard'));
    const target = await tempDir();
    await importInto(target, snapshotOf(exported, false));
    const read = (rel: string) => readFile(path.join(target, rel), 'utf8');
    expect(await read('MEMORY.md')).toBe('## Fact 1\nImportant fact about the system.\n\n## Fact 2\nAnother important thing.\n');
    expect(await read('memory/2026-01-15.md')).toBe(
      '## Morning standup\nDiscussed integration tests.\n\n## Afternoon sync\nWorked on rust adapter.\n\n## EOD summary\nTests are passing.\n',
    );
    expect(await read('SOUL.md')).toBe('# Core Directives\nYou are a standard OpenClaw agent.');
    expect(await read('USER.md')).toContain('Name: Human User');
    const again = await exportWs(target);
    expect(again.records.map((r) => r.id).sort()).toEqual(exported.records.map((r) => r.id).sort());
  });

  it('places foreign records by namespace and date, ignoring unsafe origin files', async () => {
    const agent = 'f6e5d4c3-b2a1-4f7e-8d9c-0a1b2c3d4e5f';
    const rec = (id: string, namespace: string, content: string, extra: Partial<MemoryRecord> = {}): MemoryRecord => ({
      id, agent_id: agent, content, memory_type: 'semantic', status: 'active', namespace,
      source: { runtime: 'zeroclaw', origin: 'sqlite' }, temporal: { created_at: '2026-02-03T10:00:00Z' }, ...extra,
    });
    const snapshot = {
      manifest: { agent: { id: agent } },
      records: [
        rec('00000000-0000-4000-8000-000000000001', 'default', 'Likes tea.'),
        rec('00000000-0000-4000-8000-000000000002', 'daily', 'Met Bob.'),
        rec('00000000-0000-4000-8000-000000000003', 'session:cli', 'user: hi'),
        rec('00000000-0000-4000-8000-000000000004', 'curated', 'Always test.', { source: { runtime: 'hermes', origin_file: 'memories/MEMORY.md' } }),
        rec('00000000-0000-4000-8000-000000000005', 'notes', 'Evil.', { source: { runtime: 'x', origin_file: '../evil.md' } }),
      ],
      layers: {}, raw: new Map(), extra: new Map(),
    };
    const target = await tempDir();
    const result = await importInto(target, snapshot);
    expect(result.written).toEqual(['.alf-agent-id', 'MEMORY.md', 'memory/2026-02-03.md', 'memory/default.md', 'memory/notes.md', 'memory/session-cli.md']);
    expect(await readFile(path.join(target, 'MEMORY.md'), 'utf8')).toBe('Always test.\n');
    expect(await readFile(path.join(target, '.alf-agent-id'), 'utf8')).toBe(agent);
    expect(result.memoryRecords).toBe(5);
  });
});
