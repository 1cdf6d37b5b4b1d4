/**
 * `download_late_vs_early_same_size`: does a point-in-time download cost more just because the
 * history is longer? The generated history's workspace grows 9× over its life, so its early and
 * late downloads differ in size. Here one agent keeps a workspace of constant size (the same files,
 * rewritten in place) for as many syncs as the main history, ingested through the real ledger; the
 * `.tar.gz` at an early and at the last sequence then carry the same bytes, and only the length of
 * the history behind them differs.
 */
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { closeDatabase } from '@/db/client';
import { writeDelta, writeSnapshot } from '@/lib/core/archive';
import { prng } from '@/lib/core/prng';
import type { MemoryRecord } from '@/lib/core/record';
import { openLedger, registerAgent, type Ledger } from '@/lib/ledger';
import { ingestDelta, ingestSnapshot } from '@/lib/storage/embedded-ingest';
import type { BenchResult } from '../lib/result';
import { median, round } from '../lib/stats';
import { oursOnce } from './download';

const FILES = 150;
const WORDS = ['gateway', 'postgres', 'deploy', 'rollback', 'cache', 'latency', 'on-call', 'runbook', 'vendor', 'budget', 'schema', 'index', 'alert', 'retry', 'queue'];

function fileText(rand: () => number, file: number, version: number): string {
  const lines = [`# Notes ${file}`, '', `## Topic ${file}`, ''];
  for (let i = 0; i < 24; i++) {
    lines.push(Array.from({ length: 8 }, () => WORDS[Math.floor(rand() * WORDS.length)]).join(' ') + ` (v${version})`);
  }
  return `${lines.join('\n')}\n`;
}

function recordOf(agentId: string, file: number, content: string, at: string): MemoryRecord {
  return {
    id: `0190b000-0000-7000-8000-${file.toString(16).padStart(12, '0')}`,
    agent_id: agentId,
    content,
    memory_type: 'semantic',
    source: { runtime: 'openclaw', origin: 'memory_dir', origin_file: `memory/notes-${file}.md` },
    temporal: { created_at: at },
    status: 'active',
    namespace: 'default',
  } as MemoryRecord;
}

async function buildFixedHistory(ledger: Ledger, agentId: string, turns: number): Promise<number[]> {
  const rand = prng(4242);
  const start = Date.parse('2026-01-01T00:00:00Z');
  const at = (turn: number) => new Date(start + turn * 3 * 3_600_000);
  registerAgent({ ledger, id: agentId, name: 'fixed-size', sourceRuntime: 'openclaw', tenantId: null, now: at(0) });
  const texts = Array.from({ length: FILES }, (_, f) => fileText(rand, f, 0));
  const raw = new Map(texts.map((t, f) => [`raw/openclaw/memory/notes-${f}.md`, Buffer.from(t)]));
  await ingestSnapshot({
    ledger, agentId, now: at(0),
    bytes: await writeSnapshot({
      manifest: { alf_version: '1.0.0', created_at: at(0).toISOString(), agent: { id: agentId, name: 'fixed-size', source_runtime: 'openclaw' } },
      records: texts.map((t, f) => recordOf(agentId, f, t, at(0).toISOString())), layers: {}, raw, extra: new Map(),
    }),
  });
  const sizes = [texts.reduce((s, t) => s + t.length, 0)];
  for (let turn = 1; turn < turns; turn++) {
    const edited = [Math.floor(rand() * FILES), Math.floor(rand() * FILES)].filter((f, i, all) => all.indexOf(f) === i);
    for (const f of edited) texts[f] = fileText(rand, f, turn);
    await ingestDelta({
      ledger, agentId, baseSequence: turn - 1, now: at(turn),
      bytes: await writeDelta({
        manifest: { alf_version: '1.0.0', created_at: at(turn).toISOString(), agent: { id: agentId, source_runtime: 'openclaw' }, sync: { base_sequence: turn - 1, new_sequence: 0 } },
        entries: edited.map((f) => ({ operation: 'update', record: recordOf(agentId, f, texts[f]!, at(0).toISOString()) })),
        layers: {},
        rawChanged: new Map(edited.map((f) => [`raw/openclaw/memory/notes-${f}.md`, Buffer.from(texts[f]!)])),
        rawDeleted: [],
      }),
    });
    sizes.push(texts.reduce((s, t) => s + t.length, 0));
  }
  return sizes;
}

async function downloadMs(ledger: Ledger, agentId: string, seq: number): Promise<number> {
  const { ms, bytes } = await oursOnce(ledger.db, agentId, seq);
  if (bytes === 0) throw new Error('empty download');
  return ms;
}

export async function measureDownloadFixedSize(args: { turns: number; reps: number; log: (l: string) => void }): Promise<BenchResult> {
  const dir = fs.mkdtempSync(path.join(fs.existsSync('/dev/shm') ? '/dev/shm' : os.tmpdir(), 'alf-lineage-bench-fixed-'));
  const ledger = openLedger(dir);
  try {
    const agentId = randomUUID();
    const t0 = performance.now();
    const sizes = await buildFixedHistory(ledger, agentId, args.turns);
    args.log(`  fixed-size history: ${args.turns} syncs ingested in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
    const early = Math.floor(args.turns * 0.1);
    const late = args.turns - 1;
    const times = { early: [] as number[], late: [] as number[] };
    await downloadMs(ledger, agentId, early);
    await downloadMs(ledger, agentId, late);
    for (let i = 0; i < args.reps; i++) {
      times.early.push(await downloadMs(ledger, agentId, early));
      times.late.push(await downloadMs(ledger, agentId, late));
    }
    const e = median(times.early);
    const l = median(times.late);
    args.log(`  download, same-size workspace: seq ${early} ${e.toFixed(1)} ms, seq ${late} ${l.toFixed(1)} ms`);
    return {
      name: 'download_late_vs_early_same_size',
      ours: round(l),
      peer: round(e),
      ratio: round(l / e),
      unit: 'ms (ours late ÷ ours early, same workspace size)',
      goal: '≤ 1.5',
      meets_goal: l / e <= 1.5,
      note: `one agent, ${FILES} files rewritten in place over ${args.turns} syncs (workspace ${(sizes[early]! / 1024).toFixed(0)} KiB at seq ${early}, ${(sizes[late]! / 1024).toFixed(0)} KiB at seq ${late}); .tar.gz at seq ${early} vs ${late}; median of ${args.reps}`,
    };
  } finally {
    closeDatabase(ledger.db);
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
