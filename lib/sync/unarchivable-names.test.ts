/**
 * A workspace file whose name an ALF archive cannot carry (CONTRACT §9: a backslash) is the user's
 * to rename or to leave out with `.alfignore`: a sync says so, naming the file, and uploads nothing
 * — on the first sync (a snapshot) and on a later one (a delta from the client-state store).
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { AdapterError } from '@/lib/adapters/shared/errors';
import { listEntries, openLedger } from '@/lib/ledger';
import { openclawSyncSandbox } from './testing/workspace';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const fn of cleanups.splice(0)) await fn();
});

const NAME = 'memory/from\\windows.md';

async function setup() {
  const { sb, sync } = await openclawSyncSandbox(cleanups);
  fs.mkdirSync(path.join(sb.workspace, 'memory'));
  return { sb, sync };
}

async function refusal(run: () => Promise<unknown>): Promise<AdapterError> {
  const error = await run().then(() => null, (e: unknown) => e);
  expect(error).toBeInstanceOf(AdapterError);
  return error as AdapterError;
}

function expectNamed(error: AdapterError): void {
  expect(error).toMatchObject({
    code: 'workspace_file_invalid',
    message: `the workspace file ${JSON.stringify(NAME)} cannot be synced: its name contains a backslash, which an ALF archive cannot carry`,
  });
  expect(error.hint).toBe('rename the file, or leave it out with a line in .alfignore, then sync again (nothing was uploaded)');
}

describe('a workspace file whose name an archive cannot carry', () => {
  it('first sync: refused naming the file, nothing uploaded; left out by .alfignore, the sync goes through', async () => {
    const { sb, sync } = await setup();
    fs.writeFileSync(path.join(sb.workspace, ...NAME.split('/')), 'a note\n');
    expectNamed(await refusal(sync));
    const blobs = path.join(sb.dataDir, 'blobs');
    expect(fs.existsSync(blobs) ? fs.readdirSync(blobs) : []).toEqual([]);

    fs.writeFileSync(path.join(sb.workspace, '.alfignore'), 'memory/from?windows.md\n');
    expect((await sync()).sequence).toBe(0);
  });

  it('a later sync: refused naming the file, the ledger left at its sequence', async () => {
    const { sb, sync } = await setup();
    const { agent } = await sync();
    fs.writeFileSync(path.join(sb.workspace, ...NAME.split('/')), 'a note\n');
    await sb.write('MEMORY.md', '# Memory\n\n## Owner\nLee owns billing.\n');
    expectNamed(await refusal(sync));
    expect(listEntries({ ledger: openLedger(sb.dataDir), agentId: agent.alf_agent_id }).map((e) => e.seq)).toEqual([0]);
  });
});
