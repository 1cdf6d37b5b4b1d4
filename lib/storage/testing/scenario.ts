/**
 * Test helper for the storage conformance suite: seeded agent histories written as archive bytes
 * once, so both backends ingest exactly the same uploads at the same times. Records live in
 * OpenClaw markdown files and move between them unchanged (moves), are edited and deleted; some
 * syncs carry the files raw, others are record-only deltas (the reference CLI's; the index renders
 * the files, `reconstructed`), and a binary attachment comes and goes.
 */
import { writeDelta, writeSnapshot } from '@/lib/core/archive';
import { computeDelta, diffRaw } from '@/lib/core/delta';
import { NS } from '@/lib/core/ids';
import { prng } from '@/lib/core/prng';
import type { MemoryRecord } from '@/lib/core/record';
import { uuidV5 } from '@/lib/core/uuid';

export const TOKENS = [
  '10.20.0.5', '10.20.0.53', 'redis', 'Redis', 'REDIS', 'redisson', '(redis)', 'evt-00012-a1b2c3', 'MÜLLER', 'müller', 'straße', 'STRASSE',
  'ΟΔΟΣ', 'οδος', 'σοφός', '\u212Aelvin', 'kelvin', 'İ', 'i', 'gateway', 'lan-gateway', 'fanless', 'ab', 'x1', 'NEAR', 'OR', '7.2',
  'Café', 'Cafe\u0301', 'cafe',
];
const SEPARATORS = [' ', ' ', '  ', '\n', '\t', ', ', '. ', '-'];
const FILES = ['MEMORY.md', 'memory/episodic/2026-11-01.md', 'memory/semantic/infra.md'];
const RUNTIME = 'openclaw';

export interface Upload {
  agentId: string;
  kind: 'snapshot' | 'delta';
  baseSequence: number;
  bytes: Uint8Array;
  now: Date;
}

interface Memory { id: string; file: string; content: string }

function toRecord(agentId: string, m: Memory): MemoryRecord {
  return {
    id: m.id, agent_id: agentId, content: m.content, memory_type: 'semantic',
    source: { runtime: RUNTIME, origin: 'workspace', origin_file: m.file },
    raw_source_format: { heading: null, line_start: 1 },
    temporal: { created_at: '2026-01-01T00:00:00Z' }, status: 'active', namespace: m.file === 'MEMORY.md' ? 'curated' : 'daily',
    tags: m.content.includes('redis') ? ['tier:hot', 'infra'] : ['infra'],
  };
}

function rawFiles(memories: readonly Memory[], attachment: Uint8Array | null): Map<string, Uint8Array> {
  const byFile = new Map<string, string[]>();
  for (const m of memories) byFile.set(m.file, [...(byFile.get(m.file) ?? []), m.content]);
  const out = new Map<string, Uint8Array>();
  for (const [file, parts] of [...byFile].sort()) out.set(`raw/${RUNTIME}/${file}`, new TextEncoder().encode(`${parts.join('\n\n')}\n`));
  if (attachment) out.set(`raw/${RUNTIME}/attachments/blob.bin`, attachment);
  return out;
}

/** The uploads of one agent: a snapshot, then `syncs` deltas, every `rolloverEvery`-th followed by a rollover snapshot. */
export async function agentHistory(agentId: string, seed: number, start: number, syncs: number): Promise<Upload[]> {
  const rand = prng(seed);
  const pick = <T,>(xs: readonly T[]) => xs[Math.floor(rand() * xs.length)]!;
  const text = () => Array.from({ length: 1 + Math.floor(rand() * 6) }, () => pick(TOKENS) + pick(SEPARATORS)).join('').trim() || 'x';
  let counter = 0;
  const fresh = (content = text(), file = pick(FILES)): Memory => ({ id: uuidV5(NS.alf, `conformance:${seed}:${counter++}`), file, content });
  let state: Memory[] = Array.from({ length: 4 }, () => fresh());
  let attachment: Uint8Array | null = Uint8Array.from({ length: 48 }, (_, i) => (i * 37 + seed) & 0xff);
  const uploads: Upload[] = [];
  const manifest = (now: Date) => ({ alf_version: '1.0.0', created_at: now.toISOString(), agent: { id: agentId, name: 'agent', source_runtime: RUNTIME } });
  let base = { records: [] as MemoryRecord[], raw: new Map<string, Uint8Array>() };
  let seq = 0;
  for (let s = 0; s <= syncs; s++) {
    const now = new Date(start + s * 3_600_000);
    if (s > 0) {
      for (let k = 0; k < 1 + Math.floor(rand() * 3); k++) {
        const roll = rand();
        const target = state.length > 0 ? pick(state) : null;
        if (!target || roll < 0.3) state = [...state, fresh()];
        else if (roll < 0.55) state = state.map((r) => (r === target ? { ...r, content: `${r.content} ${pick(TOKENS)}` } : r));
        else if (roll < 0.7) state = state.filter((r) => r !== target);
        else state = [...state.filter((r) => r !== target), fresh(target.content, pick(FILES.filter((f) => f !== target.file)))];
      }
      if (s % 4 === 0) attachment = attachment ? null : Uint8Array.from({ length: 32 }, (_, i) => (i * 11 + s) & 0xff);
    }
    const records = state.map((m) => toRecord(agentId, m));
    // Every third delta is record-only (no raw channel): the index renders its files.
    const recordOnly = s % 3 === 2;
    const raw = recordOnly ? base.raw : rawFiles(state, attachment);
    if (s === 0) {
      uploads.push({ agentId, kind: 'snapshot', baseSequence: 0, now, bytes: await writeSnapshot({ manifest: manifest(now), records, layers: {}, raw, extra: new Map() }) });
    } else {
      const entries = computeDelta(base.records, records);
      const rawDiff = diffRaw(base.raw, raw, RUNTIME);
      if (entries.length === 0 && rawDiff.changed.size === 0 && rawDiff.deleted.length === 0) continue;
      uploads.push({
        agentId, kind: 'delta', baseSequence: seq, now,
        bytes: await writeDelta({
          manifest: { ...manifest(now), sync: { base_sequence: seq, new_sequence: seq + 1 } },
          entries, layers: {}, rawChanged: rawDiff.changed, rawDeleted: rawDiff.deleted,
        }),
      });
      seq++;
      if (s % 5 === 0) {
        uploads.push({ agentId, kind: 'snapshot', baseSequence: seq, now, bytes: await writeSnapshot({ manifest: manifest(now), records, layers: {}, raw, extra: new Map() }) });
      }
    }
    base = { records, raw };
  }
  return uploads;
}

/**
 * A delta on `baseSequence` whose only change is one new record with `content` (the race's
 * uploads); `edit` changes that record first (odd records for the refusals).
 */
export async function oneRecordDelta(agentId: string, baseSequence: number, content: string, now: Date, edit: (r: MemoryRecord) => MemoryRecord = (r) => r): Promise<Uint8Array> {
  const record = edit(toRecord(agentId, { id: uuidV5(NS.alf, `race:${content}`), file: 'memory/race.md', content }));
  return writeDelta({
    manifest: { alf_version: '1.0.0', created_at: now.toISOString(), agent: { id: agentId, source_runtime: RUNTIME }, sync: { base_sequence: baseSequence, new_sequence: baseSequence + 1 } },
    entries: computeDelta([], [record]), layers: {}, rawChanged: new Map(), rawDeleted: [],
  });
}
