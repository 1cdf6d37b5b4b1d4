/**
 * A hand-built OpenClaw history for the compare tests, synced through the real pipeline
 * (workspace → sync → ledger → index). Between sequence 1 and 3 it has every kind of net change.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { localTarget } from '@/lib/sync/local-target';
import { syncWorkspace } from '@/lib/sync/sync';
import { makeSandbox, steppingClock } from '@/lib/sync/testing/workspace';
import type { WorkspaceComparison } from '../queries/compare';

const memory = (sections: Record<string, string>) =>
  ['# MEMORY', '', ...Object.entries(sections).flatMap(([h, text]) => [`## ${h}`, text, ''])].join('\n');

export const COMPARE_FACTS = {
  edit: ['Edit text, the first.', 'Edit text, the second.', 'Edit text, the third.'],
  gateway: ['LAN gateway: 10.20.0.5.', 'LAN gateway: 10.20.0.9.'],
  webhookFrom: 'memory/episodic/2026-10-01.md',
  webhookTo: 'memory/archive/2026/10/2026-10-01.md',
  standupFrom: 'memory/episodic/2026-10-02.md',
  standupTo: 'memory/archive/2026/10/2026-10-02.md',
  standup: ['Discussed the gateway window.', 'Discussed the gateway window and the rollback plan.'],
  infra: 'memory/semantic/infrastructure.md',
} as const;

const F = COMPARE_FACTS;

/** The net change from #1 to #3, as `compareNames` says it: a create, updates, a delete, two moves (one edited after), files added, changed and removed. */
export const CHANGES_1_TO_3 = {
  created: ['Fresh'],
  updated: ['Edit', 'Gateway'],
  deleted: ['Drop'],
  moved: [['Webhook replay', F.webhookFrom, F.webhookTo, false], ['Standup', F.standupFrom, F.standupTo, true]],
  added: [F.webhookTo, F.standupTo],
  changed: ['MEMORY.md', F.infra],
  removed: ['TOOLS.md', F.webhookFrom, F.standupFrom],
};

/** What a comparison says, by heading and path (what the tests of this history assert). */
export const compareNames = (c: WorkspaceComparison) => ({
  created: c.memories.created.map((m) => m.heading),
  updated: c.memories.updated.map((m) => m.after.heading),
  deleted: c.memories.deleted.map((m) => m.heading),
  moved: c.memories.moved.map((m) => [m.before.heading, m.before.origin_file, m.after.origin_file, m.content_changed]),
  added: c.files.added.map((f) => f.path),
  changed: c.files.changed.map((f) => f.path),
  removed: c.files.removed.map((f) => f.path),
});
const infra = (gateway: string, temp: boolean) => `## Gateway\n${gateway}\n${temp ? '\n## Temp\nA note that lives one sync.\n' : ''}`;

/**
 * Sequences: 0 the start; 1 "Edit" edited; 2 "Fresh" created, "Drop" deleted, both episodic files
 * archived (moves), TOOLS.md removed, "Temp" born; 3 "Edit" and the gateway edited, the archived
 * standup edited, "Temp" gone; 4 "Keep" edited.
 */
export async function compareHistory() {
  const sb = await makeSandbox('lineage-compare-');
  const clock = steppingClock();
  const target = localTarget(sb.dataDir, clock);
  const sync = () => syncWorkspace({ runtime: 'openclaw', workspace: sb.workspace, target, alfHome: sb.alfHome, clock });
  const move = async (from: string, to: string, edit?: (t: string) => string) => {
    const text = await fs.readFile(path.join(sb.workspace, from), 'utf8');
    await sb.remove(from);
    await sb.write(to, edit ? edit(text) : text);
  };
  await sb.write('SOUL.md', '# Soul\n\nCalm.\n');
  await sb.write('TOOLS.md', '# Tools\n\nkubectl, jq.\n');
  await sb.write('MEMORY.md', memory({ Keep: 'Keep this one.', Edit: F.edit[0], Drop: 'Drop this one.' }));
  await sb.write(F.infra, infra(F.gateway[0], false));
  await sb.write(F.webhookFrom, '## Webhook replay\nReplayed evt-00012 after the outage.\n');
  await sb.write(F.standupFrom, `## Standup\n${F.standup[0]}\n`);
  const first = await sync();
  await sb.write('MEMORY.md', memory({ Keep: 'Keep this one.', Edit: F.edit[1], Drop: 'Drop this one.' }));
  await sync();
  await sb.write('MEMORY.md', memory({ Keep: 'Keep this one.', Edit: F.edit[1], Fresh: 'A fresh memory.' }));
  await sb.write(F.infra, infra(F.gateway[0], true));
  await move(F.webhookFrom, F.webhookTo);
  await move(F.standupFrom, F.standupTo);
  await sb.remove('TOOLS.md');
  await sync();
  await sb.write('MEMORY.md', memory({ Keep: 'Keep this one.', Edit: F.edit[2], Fresh: 'A fresh memory.' }));
  await sb.write(F.infra, infra(F.gateway[1], false));
  await move(F.standupTo, F.standupTo, (t) => t.replace(F.standup[0], F.standup[1]));
  await sync();
  await sb.write('MEMORY.md', memory({ Keep: 'Keep this one, edited.', Edit: F.edit[2], Fresh: 'A fresh memory.' }));
  const last = await sync();
  return { dataDir: sb.dataDir, agentId: first.agent.alf_agent_id, latest: last.sequence, cleanup: sb.cleanup };
}
