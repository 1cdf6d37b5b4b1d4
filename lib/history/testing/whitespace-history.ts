/**
 * An OpenClaw history whose updates change only whitespace at the ends of lines (synced through the
 * real pipeline: workspace → sync → ledger → index), for the tests of how compare, the lineage and
 * sequence pages and the changes feed say such an update (compare-whitespace.test.ts,
 * lib/storage/whitespace-backends.test.ts).
 *
 *   #0 Keep, then Gateway last in MEMORY.md (its stored text ends at its last word)
 *   #1 Gateway edited, Coffee written after it (Gateway's text now ends with the blank line's break)
 *   #2 Gateway put back as it was at #0: stored "….9." → "….9.\n", an update of whitespace only
 *   #3 two spaces (a markdown line break) at the end of Keep's first line (whitespace only); Coffee edited
 */
import { openclawHistorySandbox } from '@/lib/sync/testing/workspace';

const HEAD = '# Memory\n\n';
const gateway = (ip: string) => `## Gateway\nThe gateway is ${ip}.\n`;
const COFFEE = '## Coffee\nCafé crème.\n';
const steps = (keepLine: string) => `## Keep\n${keepLine}\nSecond line.\n`;

/** What each sequence writes to MEMORY.md. */
export const WHITESPACE_STEPS = [
  HEAD + [steps('First line.'), gateway('10.20.0.9')].join('\n'),
  HEAD + [steps('First line.'), gateway('10.20.0.5'), COFFEE].join('\n'),
  HEAD + [steps('First line.'), gateway('10.20.0.9'), COFFEE].join('\n'),
  HEAD + [steps('First line.  '), gateway('10.20.0.9'), COFFEE.replace('crème', 'noir')].join('\n'),
];

/** The history synced into a sandbox's data directory (#0…#3); the caller removes it (`cleanup`). */
export async function whitespaceHistory(prefix = 'lineage-whitespace-'): Promise<{ dataDir: string; agentId: string; cleanup: () => Promise<void> }> {
  const { sb, sync } = await openclawHistorySandbox(prefix);
  try {
    let agentId = '';
    for (const [seq, text] of WHITESPACE_STEPS.entries()) {
      await sb.write('MEMORY.md', text);
      const synced = await sync();
      if (synced.sequence !== seq) throw new Error(`whitespace history: sync ${seq} gave sequence ${synced.sequence}`);
      agentId = synced.agent.alf_agent_id;
    }
    return { dataDir: sb.dataDir, agentId, cleanup: sb.cleanup };
  } catch (error) {
    await sb.cleanup();
    throw error;
  }
}
