/**
 * `search_vs_git_log_S`: "when did this fact first appear" — `git log -S FACT --reverse` (first line)
 * against our `searchFirstAppearance`, for the same planted facts, each answer checked against the
 * generator's ground truth.
 */
import type { LineageDb } from '@/db/client';
import { searchFirstAppearance } from '@/lib/history/queries';
import type { BuiltHistory } from '../history/build';
import type { BenchResult } from '../lib/result';
import { median, round, runTimed } from '../lib/stats';

export interface SearchMeasure {
  results: BenchResult[];
  gitMedianMs: number;
  mismatches: string[];
}

/** Our answer for one fact, checked against the ground truth; returns the wall time in ms. */
function oursOnce(db: LineageDb, history: BuiltHistory, fact: BuiltHistory['facts'][number], agentId: string | undefined, mismatches: string[] | null): number {
  const t0 = performance.now();
  const found = searchFirstAppearance({ db, q: fact.fact, ...(agentId ? { agentId } : {}) });
  const ms = performance.now() - t0;
  if (mismatches && (found.first?.sequence !== fact.turn || found.first.origin_file !== fact.file)) {
    mismatches.push(`ours for ${fact.fact} (${fact.kind}): ${JSON.stringify(found.first && { seq: found.first.sequence, file: found.first.origin_file })}, expected turn ${fact.turn} in ${fact.file}`);
  }
  return ms;
}

export async function measureSearch(args: {
  history: BuiltHistory; db: LineageDb; oursReps: number; gitReps: number; agentFacts: number; log: (l: string) => void;
}): Promise<SearchMeasure> {
  const { history, db } = args;
  const mismatches: string[] = [];
  const gitPerFact: number[] = [];
  const oursPerFact: number[] = [];
  for (const fact of history.facts) {
    const gitTimes: number[] = [];
    for (let i = 0; i < args.gitReps; i++) {
      const { ms, stdout } = await runTimed(`git log -S '${fact.fact}' --reverse --format=%H`, history.gitRepo);
      gitTimes.push(ms);
      const first = stdout.split('\n')[0];
      if (i === 0 && first !== history.commits[fact.turn]) mismatches.push(`git first commit for ${fact.fact} is ${first}, expected turn ${fact.turn}`);
    }
    // The first call is a warm-up (statement preparation): checked, not timed.
    oursOnce(db, history, fact, undefined, mismatches);
    const ours: number[] = [];
    for (let i = 0; i < args.oursReps; i++) ours.push(oursOnce(db, history, fact, undefined, null));
    gitPerFact.push(median(gitTimes));
    oursPerFact.push(median(ours));
  }
  const git = median(gitPerFact);
  const ours = median(oursPerFact);
  args.log(`  search: git log -S median ${git.toFixed(1)} ms, ours ${ours.toFixed(3)} ms over ${history.facts.length} facts`);
  // The same query scoped to the agent (`?agent=ID`, the agent page's search) takes another plan.
  const step = Math.max(1, Math.floor(history.facts.length / args.agentFacts));
  const scopedFacts = history.facts.filter((_, i) => i % step === 0).slice(0, args.agentFacts);
  const scoped = median(scopedFacts.map((f) => oursOnce(db, history, f, history.agentId, mismatches)));
  const scopedGit = median(scopedFacts.map((f) => gitPerFact[history.facts.indexOf(f)]!));
  args.log(`  search with agent filter: ${scoped.toFixed(1)} ms over ${scopedFacts.length} facts (git ${scopedGit.toFixed(1)} ms)`);
  return {
    gitMedianMs: git,
    mismatches,
    results: [{
      name: 'search_vs_git_log_S',
      ours: round(ours),
      peer: round(git),
      ratio: round(git / ours),
      unit: 'ms (ratio = git ÷ ours)',
      goal: '≥ 500',
      meets_goal: git / ours >= 500,
      note: `searchFirstAppearance({ q }) across agents (the header search, GET /api/search?q=); median over ${history.facts.length} planted facts of per-fact medians (ours ${args.oursReps} runs, git ${args.gitReps}); ${history.turns} commits; first appearances ${mismatches.length === 0 ? 'all match ground truth (sequence and file, ours and git)' : `${mismatches.length} MISMATCHES`}`,
    }, {
      name: 'search_vs_git_log_S_agent_scoped',
      ours: round(scoped),
      peer: round(scopedGit),
      ratio: round(scopedGit / scoped),
      unit: 'ms (ratio = git ÷ ours)',
      goal: '≥ 500',
      meets_goal: scopedGit / scoped >= 500,
      note: `searchFirstAppearance({ q, agentId }) (GET /api/search?q=&agent=ID), one run each over ${scopedFacts.length} facts (the FTS index drives the query: CROSS JOIN keeps SQLite from walking the agent's versions first)`,
    }],
  };
}
