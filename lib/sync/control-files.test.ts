/**
 * The files lineage itself keeps in a workspace (`.alf-agent-id`, `.alfignore`, `.alf-synced.json`)
 * may be there as something else: a directory of that name, a FIFO (which a read would wait on for
 * ever). Each is a clear `workspace_file_invalid` naming the file and what lineage keeps in it —
 * not an internal error (`EISDIR`), not a hang — and no upload is made.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { AdapterError } from '@/lib/adapters/shared/errors';
import { listAgents, listEntries, openLedger } from '@/lib/ledger';
import { localTarget } from './local-target';
import { restoreAgent } from './restore';
import { syncWorkspace } from './sync';
import { makeSandbox, openclawSyncSandbox, steppingClock } from './testing/workspace';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const fn of cleanups.splice(0)) await fn();
});

const setup = () => openclawSyncSandbox(cleanups);

async function failure(run: () => Promise<unknown>): Promise<AdapterError> {
  const error = await run().then(() => null, (e: unknown) => e);
  expect(error).toBeInstanceOf(AdapterError);
  return error as AdapterError;
}

const CASES: [file: string, holds: string][] = [
  ['.alf-agent-id', "the workspace's agent id"],
  ['.alfignore', 'the paths a sync leaves out'],
  ['.alf-synced.json', 'what the workspace was last synced from'],
];

describe("a workspace whose lineage files are not files", () => {
  it.each(CASES)('%s as a directory: workspace_file_invalid, nothing uploaded', async (name, holds) => {
    const { sb, sync } = await setup();
    fs.mkdirSync(path.join(sb.workspace, name, 'inside'), { recursive: true });
    const error = await failure(sync);
    const file = path.join(sb.workspace, name);
    expect(error).toMatchObject({ code: 'workspace_file_invalid', message: `${file} is a directory: lineage keeps ${holds} in a file of that name` });
    expect(error.hint).toContain(`move ${file} out of the way`);
    const ledger = fs.existsSync(sb.dataDir) ? openLedger(sb.dataDir) : null;
    for (const { id } of ledger ? listAgents({ ledger }) : []) expect(listEntries({ ledger: ledger!, agentId: id })).toEqual([]);

    fs.rmSync(file, { recursive: true });
    expect((await sync()).sequence).toBe(0);
  });

  it('.alfignore as a FIFO: refused at once, not waited on', async () => {
    const { sb, sync } = await setup();
    const fifo = path.join(sb.workspace, '.alfignore');
    execFileSync('mkfifo', [fifo]);
    expect(await failure(sync)).toMatchObject({ code: 'workspace_file_invalid', message: `${fifo} is not a regular file: lineage keeps the paths a sync leaves out in a file of that name` });
  });

  it.each([
    ['.alf-agent-id', 'a directory', 'a file'],
    ['MEMORY.md', 'a directory', 'a file'],
    ['memory', 'a file', 'a directory'],
  ])('a restore into a live workspace where %s is %s: refused before anything is written', async (rel, found, needed) => {
    const { sb, sync, target, alfHome, clock } = await setup();
    await sb.write('memory/notes.md', '## Build\nmake all\n');
    const { agent } = await sync();
    const live = path.join(sb.root, 'live');
    fs.mkdirSync(live);
    if (found === 'a file') fs.writeFileSync(path.join(live, rel), 'in the way');
    else fs.mkdirSync(path.join(live, rel, 'inside'), { recursive: true });
    const before = execFileSync('find', [live, '-printf', '%p %s\n']).toString();
    const error = await failure(() => restoreAgent({ runtime: 'openclaw', agentId: agent.alf_agent_id, target, alfHome, workspace: live, clock, replace: true }));
    expect(error).toMatchObject({ code: 'workspace_file_invalid', message: `cannot restore into ${live}: ${rel} is ${found} there, where the restore writes ${needed}` });
    expect(execFileSync('find', [live, '-printf', '%p %s\n']).toString()).toBe(before);
  });
});

describe('a workspace that is not there', () => {
  it.each(['openclaw', 'zeroclaw', 'hermes'] as const)('%s: workspace_missing before anything is written, not even a lock file', async (runtime) => {
    const sb = await makeSandbox();
    cleanups.push(sb.cleanup);
    const clock = steppingClock();
    const alfHome = path.join(sb.alfHome, '.alf');
    fs.writeFileSync(path.join(sb.root, 'a-file'), 'x');
    for (const workspace of [path.join(sb.root, 'missing'), path.join(sb.root, 'a-file'), path.join(sb.root, 'a-file', 'below')]) {
      const error = await failure(() => syncWorkspace({ runtime, workspace, target: localTarget(sb.dataDir, clock), alfHome, clock }));
      expect(error).toMatchObject({ code: 'workspace_missing', message: `workspace not found or not a directory: ${workspace}` });
    }
    expect(fs.existsSync(sb.alfHome)).toBe(false);
    expect(fs.existsSync(sb.dataDir)).toBe(false);
  });
});
