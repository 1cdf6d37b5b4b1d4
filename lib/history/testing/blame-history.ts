/**
 * A hand-built OpenClaw (v4.1 layout) history for the blame tests, synced through the real pipeline
 * (export → reconcile → delta → ingest → index) with a stepping clock:
 * #0 MEMORY.md (Now, Later) and a daily log; #1 a section added above Later (Later's line numbers
 * and every record's mtime change: no content change); #2 Now edited; #3 the daily log archived
 * unchanged (a move); #4 a section edited in the archived file.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { localTarget } from '@/lib/sync/local-target';
import { syncWorkspace } from '@/lib/sync/sync';
import { makeSandbox, steppingClock } from '@/lib/sync/testing/workspace';
import type { BlameBlock } from '../queries/blame';

export const DAILY = 'memory/episodic/2026-10-01.md';
export const ARCHIVED = 'memory/archive/2026/10/2026-10-01.md';
const memory = (now: string, added: boolean) =>
  ['# MEMORY', '', '## Now', now, '', ...(added ? ['## Added', 'Added at sequence one.', ''] : []), '## Later', 'Ship the blame view.', ''].join('\n');
const DAILY_TEXT = '# 2026-10-01\n\n## Standup\nDiscussed the gateway window.\n\n## Afternoon\nRolled the canary to 10%.\n';

export const BLAME_STEPS: Record<string, string>[] = [
  { 'MEMORY.md': memory('Migrating the queue to Redis Streams.', false), [DAILY]: DAILY_TEXT },
  { 'MEMORY.md': memory('Migrating the queue to Redis Streams.', true), [DAILY]: DAILY_TEXT },
  { 'MEMORY.md': memory('The queue runs on Redis Streams now.', true), [DAILY]: DAILY_TEXT },
  { 'MEMORY.md': memory('The queue runs on Redis Streams now.', true), [ARCHIVED]: DAILY_TEXT },
  { 'MEMORY.md': memory('The queue runs on Redis Streams now.', true), [ARCHIVED]: DAILY_TEXT.replace('10%', '25%') },
];

/** A blame's blocks in short: the lines each covers, a section's heading and born / changed / moved sequences, the file's change. */
export const blameSummary = (blocks: BlameBlock[]) =>
  blocks.map((x) => x.kind === 'section'
    ? { lines: [x.line_start, x.line_end], heading: x.heading, born: x.born.seq, changed: x.changed.seq, moved: x.moved?.seq ?? null }
    : { lines: [x.line_start, x.line_end], file: x.changed.seq });

/** Syncs every step into `dataDir` (a fresh directory under a sandbox); returns the agent id and a cleanup. */
export async function buildBlameHistory(): Promise<{ dataDir: string; agentId: string; cleanup: () => Promise<void> }> {
  const sb = await makeSandbox('lineage-blame-');
  const clock = steppingClock();
  const target = localTarget(sb.dataDir, clock);
  let agentId = '';
  for (const [i, files] of BLAME_STEPS.entries()) {
    await fs.rm(path.join(sb.workspace, 'memory'), { recursive: true, force: true });
    for (const [rel, text] of Object.entries(files)) await sb.write(rel, text);
    const out = await syncWorkspace({ runtime: 'openclaw', workspace: sb.workspace, target, alfHome: sb.alfHome, clock });
    if (out.sequence !== i) throw new Error(`step ${i} synced as sequence ${out.sequence}`);
    agentId = out.agent.alf_agent_id;
  }
  return { dataDir: sb.dataDir, agentId, cleanup: sb.cleanup };
}
