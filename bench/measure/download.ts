/**
 * `download_vs_git_archive`: our `.tar.gz` of the workspace at a sequence (streamed, bytes counted)
 * against `git archive <commit> | gzip` at the same point, early and late in the history.
 */
import type { LineageDb } from '@/db/client';
import { streamWorkspaceArchive } from '@/lib/history/queries';
import type { BuiltHistory } from '../history/build';
import type { BenchResult } from '../lib/result';
import { median, round, runTimed } from '../lib/stats';

/** One `.tar.gz` of the workspace at `seq`, streamed to the end: its time and size. */
export async function oursOnce(db: LineageDb, agentId: string, seq: number): Promise<{ ms: number; bytes: number }> {
  const t0 = performance.now();
  const stream = streamWorkspaceArchive({ db, agentId, seq, format: 'tar.gz' });
  if (!stream) throw new Error(`no agent ${agentId}`);
  let bytes = 0;
  for await (const chunk of stream) bytes += (chunk as Buffer).byteLength;
  return { ms: performance.now() - t0, bytes };
}

interface Point { seq: number; ours: number; git: number; oursBytes: number; gitBytes: number; files: number; wsBytes: number }

async function measurePoint(history: BuiltHistory, db: LineageDb, seq: number, reps: number): Promise<Point> {
  const ours: number[] = [];
  const git: number[] = [];
  let oursBytes = 0;
  let gitBytes = 0;
  await oursOnce(db, history.agentId, seq);
  for (let i = 0; i < reps; i++) {
    const o = await oursOnce(db, history.agentId, seq);
    ours.push(o.ms);
    oursBytes = o.bytes;
    const g = await runTimed(`git archive --format=tar ${history.commits[seq]} | gzip -6 | wc -c`, history.gitRepo);
    git.push(g.ms);
    gitBytes = Number(g.stdout.trim());
  }
  const size = history.sizes[seq]!;
  return { seq, ours: median(ours), git: median(git), oursBytes, gitBytes, files: size.files, wsBytes: size.bytes };
}

export async function measureDownload(args: { history: BuiltHistory; db: LineageDb; reps: number; log: (l: string) => void }): Promise<BenchResult[]> {
  const { history } = args;
  const early = await measurePoint(history, args.db, Math.floor(history.turns * 0.1), args.reps);
  const late = await measurePoint(history, args.db, history.turns - 1, args.reps);
  const row = (p: Point, label: string): BenchResult => ({
    name: `download_vs_git_archive_${label}`,
    ours: round(p.ours),
    peer: round(p.git),
    ratio: round(p.ours / p.git),
    unit: 'ms (ratio = ours ÷ git)',
    goal: '≤ 1.0',
    meets_goal: p.ours / p.git <= 1,
    note: `seq ${p.seq}: ${p.files} files, ${(p.wsBytes / 1024).toFixed(0)} KiB; .tar.gz ours ${(p.oursBytes / 1024).toFixed(0)} KiB, git ${(p.gitBytes / 1024).toFixed(0)} KiB; median of ${args.reps}`,
  });
  const perMb = (p: Point) => p.ours / (p.wsBytes / 1e6);
  args.log(`  download: early ${early.ours.toFixed(1)} vs git ${early.git.toFixed(1)} ms; late ${late.ours.toFixed(1)} vs git ${late.git.toFixed(1)} ms`);
  return [
    row(early, 'early'),
    row(late, 'late'),
    {
      name: 'download_late_vs_early',
      ours: round(late.ours),
      peer: round(early.ours),
      ratio: round(late.ours / early.ours),
      unit: 'ms (ours late ÷ ours early)',
      note: `informational: the workspace itself grows ${(late.wsBytes / early.wsBytes).toFixed(1)}× in bytes and ${(late.files / early.files).toFixed(1)}× in files between seq ${early.seq} and ${late.seq}; git archive late ÷ early = ${(late.git / early.git).toFixed(2)}. The late ÷ early goal is measured where only the history's length differs: download_late_vs_early_same_size`,
    },
    {
      name: 'download_late_vs_early_per_mb',
      ours: round(perMb(late)),
      peer: round(perMb(early)),
      ratio: round(perMb(late) / perMb(early)),
      unit: 'ms per MB of workspace (late ÷ early)',
      goal: '≤ 1.5',
      meets_goal: perMb(late) / perMb(early) <= 1.5,
      note: 'size-normalised: does a point-in-time download cost more just because the history is longer?',
    },
  ];
}
