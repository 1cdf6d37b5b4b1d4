import { mkdir, readFile, symlink, utimes, writeFile } from 'node:fs/promises';
import path from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Section } from '@/lib/core/markdown';
import { sha256Hex } from '@/lib/core/uuid';
import type { FileKeys } from '../types';
import { openclawAdapter } from './index';
import { sectionKey } from './records';
import { FIXED_CLOCK, SHARED_ALF, copyFixture, tempDir } from './test-helpers';

const exportWs = (workspace: string, persistAgentId = true) =>
  openclawAdapter.exportWorkspace({ workspace, persistAgentId, clock: FIXED_CLOCK });

const countByFile = (records: { source: { origin_file?: string } }[]) => {
  const counts: Record<string, number> = {};
  for (const r of records) counts[r.source.origin_file!] = (counts[r.source.origin_file!] ?? 0) + 1;
  return counts;
};

describe('openclaw export: golden DTO', () => {
  it('yields the reference id, tags, source and line range for the golden daily section', async () => {
    const golden = JSON.parse(await readFile(path.join(SHARED_ALF, 'fixtures/captured/openclaw-memory-dto.golden.json'), 'utf8'));
    const dto = golden.sample_dto;
    const ws = await tempDir();
    await writeFile(path.join(ws, '.alf-agent-id'), 'a1b2c3d4-e5f6-4a7b-8c9d-0e1f2a3b4c5d');
    await mkdir(path.join(ws, 'memory'));
    await writeFile(path.join(ws, 'memory/2026-01-15.md'), `${dto.content}\n## Afternoon\nSomething else.\n`);
    const result = await exportWs(ws);
    const record = result.records.find((r) => r.raw_source_format?.heading === 'Morning standup')!;
    expect(record.id).toBe(dto.id);
    expect(record.content).toBe(dto.content);
    expect(record.memory_type).toBe(dto.memory_type);
    expect(record.namespace).toBe(dto.namespace);
    expect(record.tags).toEqual(dto.tags);
    expect(record.raw_source_format).toEqual(dto.raw_source_format);
    expect(record.source).toEqual(dto.source);
    expect(record.temporal.created_at).toBe(dto.created_at_alf);
    expect(record.temporal.observed_at).toBe(dto.observed_at);
    expect(record.category).toBe('decision');
    expect(record.confidence).toBe(0.8);
    expect(record.status).toBe('active');
  });
});

describe('openclaw export: reference fixtures', () => {
  it('standard: agent id, records per file, handler treatment, raw set, layers', async () => {
    const ws = await copyFixture('standard');
    const result = await exportWs(ws);
    expect(result.agentId).toBe('377f6e23-ecf6-50c9-a538-8fee0e49a65b');
    expect(result.agentName).toBe('Standard Agent');
    expect(countByFile(result.records)).toEqual({
      'MEMORY.md': 2,
      'memory/2026-01-15.md': 3,
      'memory/2026-01-16.md': 1,
      'memory/active-context.md': 1,
      'memory/gating-policies.md': 1,
      'memory/project-clawsmith.md': 1,
    });
    const byFile = (f: string) => result.records.filter((r) => r.source.origin_file === f);
    expect(byFile('MEMORY.md').map((r) => [r.namespace, r.memory_type, r.source.extraction_method, r.raw_source_format])).toEqual([
      ['curated', 'semantic', 'user_authored', { heading: 'Fact 1', line_end: 5, line_start: 3 }],
      ['curated', 'semantic', 'user_authored', { heading: 'Fact 2', line_end: 7, line_start: 6 }],
    ]);
    expect(byFile('memory/active-context.md')[0]).toMatchObject({
      namespace: 'active-context',
      memory_type: 'summary',
      content: 'We are currently working on the integration tests.',
      raw_source_format: { heading: null, line_start: 1, line_end: 1 },
    });
    expect(byFile('memory/gating-policies.md')[0]!.source.extraction_method).toBe('user_authored');
    expect(byFile('memory/project-clawsmith.md')[0]!.namespace).toBe('project');
    expect(result.records.every((r) => !r.tags!.some((t) => t.startsWith('tier:')))).toBe(true);
    expect([...result.raw.keys()]).toEqual([
      'SOUL.md', 'IDENTITY.md', 'AGENTS.md', 'USER.md', 'TOOLS.md', 'HEARTBEAT.md', 'MEMORY.md',
      'memory/2026-01-15.md', 'memory/2026-01-16.md', 'memory/active-context.md', 'memory/gating-policies.md',
      'memory/project-clawsmith.md',
    ]);
    expect(result.layers.identity).toMatchObject({ id: expect.any(String), agent_id: result.agentId, version: 1 });
    expect(result.layers.principals!.principals).toHaveLength(1);
  });

  it('sorts records by created_at, dated files first', async () => {
    const ws = await copyFixture('standard');
    const march = new Date('2026-03-01T00:00:00Z');
    for (const f of ['MEMORY.md', 'memory/active-context.md', 'memory/gating-policies.md', 'memory/project-clawsmith.md']) {
      await utimes(path.join(ws, f), march, march);
    }
    const result = await exportWs(ws);
    expect(result.records.find((r) => r.namespace === 'active-context')!.temporal.created_at).toBe('2026-03-01T00:00:00Z');
    const created = result.records.map((r) => Date.parse(r.temporal.created_at));
    expect(created).toEqual([...created].sort((a, b) => a - b));
    expect(result.records[0]!.source.origin_file).toBe('memory/2026-01-15.md');
  });

  it('community-patterns: importance tags and a binary placeholder carried byte-exact', async () => {
    const ws = await copyFixture('community-patterns');
    const result = await exportWs(ws);
    expect(result.agentId).toBe('b118d25b-3550-590c-8e33-005a3f38f321');
    expect(result.records).toHaveLength(2);
    const daily = result.records.find((r) => r.namespace === 'daily')!;
    expect(daily).toMatchObject({ tags: ['daily', 'decision'], category: 'decision', confidence: 0.9 });
    const placeholder = await readFile(path.join(SHARED_ALF, 'fixtures/openclaw/community-patterns/memory/facts.db'));
    expect(Buffer.from(result.raw.get('memory/facts.db')!)).toEqual(placeholder);
    expect(result.agentName).toBe('community-patterns');
  });

  it('minimal and empty: no records, agent id from the file, never the id file itself raw', async () => {
    const minimal = await exportWs(await copyFixture('minimal'));
    expect(minimal).toMatchObject({ agentId: '9a81df14-bd51-52d0-aeab-f84c2c118f93', records: [] });
    expect([...minimal.raw.keys()]).toEqual(['SOUL.md']);
    const empty = await exportWs(await copyFixture('empty'));
    expect(empty).toMatchObject({ agentId: '04e2d761-044d-5e67-9ac2-4e728c27dc48', records: [], layers: {} });
    expect(empty.raw.size).toBe(0);
  });

  it('is deterministic: same records and raw bytes twice', async () => {
    const ws = await copyFixture('standard');
    const a = await exportWs(ws);
    const b = await exportWs(ws);
    expect(b.records).toEqual(a.records);
    expect(b.layers).toEqual(a.layers);
    expect([...b.raw.entries()]).toEqual([...a.raw.entries()]);
  });
});

describe('openclaw export: workspace rules', () => {
  it('honours .alfignore, counts exclusions, and never carries control files', async () => {
    const ws = await copyFixture('standard');
    await writeFile(path.join(ws, '.alfignore'), 'memory/project-*.md\nTOOLS.md\n');
    await writeFile(path.join(ws, '.alf-synced.json'), '{}');
    await writeFile(path.join(ws, '.alf-sync-log.md'), 'log');
    const result = await exportWs(ws);
    expect(result.excludedByAlfignore).toBe(2);
    expect(result.raw.has('memory/project-clawsmith.md')).toBe(false);
    expect(result.records.some((r) => r.source.origin_file === 'memory/project-clawsmith.md')).toBe(false);
    expect(result.raw.has('.alf-sync-log.md')).toBe(true);
    expect(result.raw.has('.alf-synced.json')).toBe(false);
    expect(result.raw.has('.alf-agent-id')).toBe(false);
  });

  it('honours the first pattern of an .alfignore saved with a UTF-8 byte order mark (as Windows editors save it)', async () => {
    const ws = await copyFixture('standard');
    await writeFile(path.join(ws, '.alfignore'), '\uFEFFmemory/project-*.md\r\nTOOLS.md\r\n');
    const result = await exportWs(ws);
    expect(result.raw.has('memory/project-clawsmith.md')).toBe(false);
    expect(result.records.some((r) => r.source.origin_file === 'memory/project-clawsmith.md')).toBe(false);
    expect(result.excludedByAlfignore).toBe(2);
  });

  it('does not follow a root-file symlink out of the workspace', async () => {
    const ws = await copyFixture('minimal');
    const outside = await tempDir();
    await writeFile(path.join(outside, 'secret.md'), 'secret');
    await symlink(path.join(outside, 'secret.md'), path.join(ws, 'USER.md'));
    const result = await exportWs(ws);
    expect([...result.raw.keys()]).toEqual(['SOUL.md']);
    expect(result.layers.principals).toBeUndefined();
  });

  it('mints and persists an agent id only when asked', async () => {
    const ws = await tempDir();
    await writeFile(path.join(ws, 'MEMORY.md'), '## A\nfact\n');
    const dry = await exportWs(ws, false);
    await expect(readFile(path.join(ws, '.alf-agent-id'))).rejects.toThrow();
    const real = await exportWs(ws, true);
    expect(real.agentId).toBe(dry.agentId);
    expect(await readFile(path.join(ws, '.alf-agent-id'), 'utf8')).toBe(real.agentId);
  });

  it('rejects a missing workspace with a clear error', async () => {
    await expect(exportWs(path.join(await tempDir(), 'nope'))).rejects.toThrow(/workspace not found/);
  });

  it('reports memory presence', async () => {
    const ws = await tempDir();
    expect(await openclawAdapter.memoryPresent(ws)).toBe(false);
    await mkdir(path.join(ws, 'memory/deep'), { recursive: true });
    await writeFile(path.join(ws, 'memory/deep/x.txt'), 'x');
    expect(await openclawAdapter.memoryPresent(ws)).toBe(false);
    await writeFile(path.join(ws, 'memory/deep/x.md'), 'x');
    expect(await openclawAdapter.memoryPresent(ws)).toBe(true);
  });
});

describe('openclaw export as record slots', () => {
  const slotsOf = (workspace: string, known: (key: string) => boolean) =>
    openclawAdapter.exportSlots!({ workspace, persistAgentId: true, clock: FIXED_CLOCK }, async () => known);

  it('leaves the records with a known key unbuilt, and builds exactly the exported records on demand', async () => {
    const ws = await tempDir();
    await mkdir(path.join(ws, 'memory/semantic'), { recursive: true });
    await writeFile(path.join(ws, 'MEMORY.md'), '# Memory\n\n## Hosts\nweb is 10.0.4.17\n\n## Rules\nno deploys on Friday\n');
    await writeFile(path.join(ws, 'memory/semantic/infra.md'), '# Infra\n#tags: infra, ops\n\n## Queue\nRedis\n\n## Queue\nRedis\n');
    await writeFile(path.join(ws, 'memory/2026-01-15.md'), '## Standup\nshipped it\n');
    const exported = await exportWs(ws);
    const known = await slotsOf(ws, () => true);
    expect(known.slots.every((slot) => slot.record === null)).toBe(true);
    expect(known.slots.map((slot) => slot.build())).toEqual(exported.records);
    const unknown = await slotsOf(ws, () => false);
    expect(unknown.slots.map((slot) => slot.record)).toEqual(exported.records);
    // One key per record (duplicate sections included), the same whichever way they were asked for.
    expect(new Set(unknown.slots.map((slot) => slot.key)).size).toBe(exported.records.length);
    expect(known.slots.map((slot) => slot.key)).toEqual(unknown.slots.map((slot) => slot.key));
  });

  it('keeps a key while only the file time moves, and changes it with the section or the file tags', async () => {
    const ws = await tempDir();
    await mkdir(path.join(ws, 'memory/semantic'), { recursive: true });
    const file = path.join(ws, 'memory/semantic/infra.md');
    const write = async (tags: string, queue: string, at: string) => {
      await writeFile(file, `# Infra\n#tags: ${tags}\n\n## Hosts\nweb is 10.0.4.17\n\n## Queue\n${queue}\n`);
      await utimes(file, new Date(at), new Date(at));
      return (await slotsOf(ws, () => false)).slots.map((slot) => slot.key);
    };
    const first = await write('infra', 'Redis', '2026-01-01T00:00:00Z');
    expect(await write('infra', 'Redis', '2026-02-01T00:00:00Z')).toEqual(first);
    const edited = await write('infra', 'RabbitMQ', '2026-02-01T00:00:00Z');
    expect(edited[0]).toBe(first[0]);
    expect(edited[1]).not.toBe(first[1]);
    const retagged = await write('infra, ops', 'Redis', '2026-02-01T00:00:00Z');
    expect(retagged.every((key, k) => key !== first[k])).toBe(true);
  });
});

describe('openclaw export with remembered file keys', () => {
  const slotsWith = (workspace: string, fileKeys: FileKeys, known: (key: string) => boolean = () => false) =>
    openclawAdapter.exportSlots!({ workspace, persistAgentId: true, clock: FIXED_CLOCK }, async () => known, async () => fileKeys);

  const store = async () => {
    const ws = await tempDir();
    await mkdir(path.join(ws, 'memory/semantic'), { recursive: true });
    await writeFile(path.join(ws, 'MEMORY.md'), '# Memory\n\n## Hosts\nweb is 10.0.4.17\n\n## Rules\nno deploys on Friday\n');
    await writeFile(path.join(ws, 'memory/semantic/infra.md'), '# Infra\n#tags: infra, ops\n\n## Queue\nRedis\n\n## Queue\nRedis\n');
    await writeFile(path.join(ws, 'memory/2026-01-15.md'), '## Standup\nshipped it\n');
    return ws;
  };

  it('reports every record-bearing file with its keys, and takes a remembered file\'s keys without chunking it', async () => {
    const ws = await store();
    const fresh = await slotsWith(ws, new Map());
    expect(fresh.fileKeys!.size).toBe(3);
    expect(new Set([...fresh.fileKeys!.values()].flat())).toEqual(new Set(fresh.slots.map((slot) => slot.key)));
    // The keys are taken from what is remembered: keys no chunking would give show it.
    const fake = new Map([...fresh.fileKeys!].map(([digest, keys]) => [digest, keys.map((_, i) => `${'f'.repeat(31)}${i}`)]));
    const remembered = await slotsWith(ws, fake);
    expect(remembered.slots.every((slot) => slot.record === null && slot.key.startsWith('f'.repeat(31)))).toBe(true);
    expect(remembered.fileKeys).toEqual(fake);
    // Built on demand, they are the records a fresh export builds, in the same order.
    const exported = await exportWs(ws);
    expect(remembered.slots.map((slot) => slot.build())).toEqual(exported.records);
    // With the true keys remembered, the export is the one without them.
    const same = await slotsWith(ws, fresh.fileKeys!);
    expect(same.slots.map((slot) => slot.key)).toEqual(fresh.slots.map((slot) => slot.key));
    expect(same.slots.map((slot) => slot.build())).toEqual(exported.records);
  });

  it('chunks a file again when its bytes change, and only that file', async () => {
    const ws = await store();
    const first = await slotsWith(ws, new Map());
    await writeFile(path.join(ws, 'memory/semantic/infra.md'), '# Infra\n#tags: infra, ops\n\n## Queue\nRabbitMQ\n\n## Queue\nRedis\n');
    const edited = await slotsWith(ws, first.fileKeys!);
    const kept = [...edited.fileKeys!.keys()].filter((digest) => first.fileKeys!.has(digest));
    expect(kept).toHaveLength(2);
    expect(edited.slots.map((slot) => slot.key)).toEqual((await slotsWith(ws, new Map())).slots.map((slot) => slot.key));
  });

  it('does not reuse a file\'s keys once the layout gives it another tier', async () => {
    const ws = await tempDir();
    await mkdir(path.join(ws, 'memory'));
    await writeFile(path.join(ws, 'MEMORY.md'), '# Memory\n\n## Hosts\nweb is 10.0.4.17\n');
    await writeFile(path.join(ws, 'memory/2026-01-15.md'), '## Standup\nshipped it\n');
    const flat = await slotsWith(ws, new Map());
    // A v4.1 directory makes MEMORY.md the hot tier (same bytes, other records): only the daily
    // note's keys are reused.
    await mkdir(path.join(ws, 'memory/semantic'));
    const tiered = await slotsWith(ws, flat.fileKeys!);
    expect([...tiered.fileKeys!.keys()].filter((digest) => flat.fileKeys!.has(digest))).toHaveLength(1);
    expect(tiered.slots.map((slot) => slot.key)).toEqual((await slotsWith(ws, new Map())).slots.map((slot) => slot.key));
    expect(tiered.slots.map((slot) => slot.build())).toEqual((await exportWs(ws)).records);
    expect((await exportWs(ws)).records.some((r) => r.tags?.includes('tier:hot'))).toBe(true);
  });

  it('refuses to build from remembered keys that do not fit the file', async () => {
    const ws = await store();
    const fresh = await slotsWith(ws, new Map());
    const wrong = new Map([...fresh.fileKeys!].map(([digest, keys]) => [digest, [...keys, 'e'.repeat(32)]]));
    const slots = (await slotsWith(ws, wrong)).slots;
    expect(() => slots.map((slot) => slot.build())).toThrow(/remembered for its bytes name \d+ sections, it has \d+/);
  });
});

describe('openclaw record keys', () => {
  it('are the sha256 of the file key, lines, occurrence, heading and content, whatever their characters', () => {
    const fileKey = sha256Hex('a file key');
    const reference = (s: Section, occurrence: number) =>
      sha256Hex(`${fileKey}${s.lineStart},${s.lineEnd},${occurrence},${s.heading === null ? '-' : `${s.heading.length}:${s.heading}`}${s.content}`).slice(0, 32);
    const sections: Section[] = [
      { heading: 'Plain', content: '## Plain\nbody', lineStart: 1, lineEnd: 2 },
      { heading: null, content: 'no heading at all', lineStart: 3, lineEnd: 3 },
      { heading: '', content: '## \nempty heading', lineStart: 4, lineEnd: 5 },
      { heading: 'Ünïcödé 🧠', content: '## Ünïcödé 🧠\nnaïve café — 10.0.4.17 🎉', lineStart: 6, lineEnd: 7 },
      { heading: 'lone \ud800 surrogate', content: `## x\n${'long line '.repeat(20_000)}\udc00`, lineStart: 8, lineEnd: 9 },
    ];
    sections.forEach((s, i) => expect(sectionKey(fileKey, s, i)).toBe(reference(s, i)));
    // Distinct inputs, distinct keys (the heading is length-prefixed).
    expect(sectionKey(fileKey, { heading: 'ab', content: 'c', lineStart: 1, lineEnd: 1 }, 0))
      .not.toBe(sectionKey(fileKey, { heading: 'a', content: 'bc', lineStart: 1, lineEnd: 1 }, 0));
  });

  it('hash each part encoded on its own: a heading ending in a high surrogate and content starting with a low one stay two U+FFFDs', () => {
    const fileKey = sha256Hex('a file key');
    // The bytes every key was made of: each part's UTF-8 apart, concatenated.
    const parts = (s: Section, occurrence: number) => sha256Hex(Buffer.concat([
      Buffer.from(fileKey, 'utf8'),
      Buffer.from(`${s.lineStart},${s.lineEnd},${occurrence},${s.heading === null ? '-' : `${s.heading.length}:`}`, 'latin1'),
      Buffer.from(s.heading ?? '', 'utf8'),
      Buffer.from(s.content, 'utf8'),
    ])).slice(0, 32);
    const meeting: Section = { heading: 'x\ud83e', content: '\udde0 rest', lineStart: 2, lineEnd: 3 };
    expect(sectionKey(fileKey, meeting, 1)).toBe(parts(meeting, 1));
    const unit = fc.constantFrom('a', '#', ' ', '\n', 'é', '漢', '🧠', '\ud800', '\udbff', '\udc00', '\udfff', '');
    const text = fc.array(unit, { maxLength: 8 }).map((units) => units.join(''));
    fc.assert(fc.property(fc.option(text, { nil: null }), text, fc.nat(9), (heading, content, occurrence) => {
      const s: Section = { heading, content, lineStart: 1, lineEnd: 4 };
      expect(sectionKey(fileKey, s, occurrence)).toBe(parts(s, occurrence));
    }), { numRuns: 2000, seed: 22 });
  });
});
