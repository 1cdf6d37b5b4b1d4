/**
 * A server restored from a backup, and a machine whose state is from before the restore
 * (lib/ledger/ingest-base.ts). Machine 1 syncs an agent to sequence 1; a backup is taken; machine 1
 * syncs heron-1 and heron-2 (sequences 2, 3); the data directory is put back from the backup (the
 * ledger ends at 1). Machine 2 restores the head into its workspace and syncs badger-1 and badger-2:
 * the ledger is at 3 again. Machine 1's state is at 3 too, from before the restore: its next delta
 * names base 3 and used to be taken, folded onto machine 2's entry at 3 — the head's records held
 * badger-1 and never heron-1 while its MEMORY.md held heron-1..3 and no badger. Now it is refused
 * (the entry at 3 is a delta made after machine 1's base), nothing changes on either side, and after
 * `sync --rebase` machine 1's next sync is taken and the head's records, MEMORY.md and search agree.
 * On a `--data` directory and on a served instance over HTTP (both the embedded ledger: a backup is
 * a data directory's).
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { closeDatabase, openDatabase } from '@/db/client';
import { backupDataDir } from '@/lib/ledger/backup';
import { createLineageServer, type LineageServer } from '@/lib/server/http-server';
import { openStorage, storageConfigFrom } from '@/lib/storage/config';
import type { LineageStorage } from '@/lib/storage/types';
import { httpTarget } from '@/lib/sync/http-target';
import { localTarget } from '@/lib/sync/local-target';
import { rebaseWorkspace } from '@/lib/sync/rebase';
import { restoreAgent } from '@/lib/sync/restore';
import { syncWorkspace } from '@/lib/sync/sync';
import type { SyncTarget } from '@/lib/sync/target';
import { makeSandbox, readTree, steppingClock } from '@/lib/sync/testing/workspace';

/** The target of one phase (before the restore, after it), and the storage behind it as the dashboard and search read it. */
interface Phase { target: SyncTarget; storage(): Promise<LineageStorage>; close(): Promise<void> }
type Sandbox = Awaited<ReturnType<typeof makeSandbox>>;

const SETUPS: [string, (sb: Sandbox, port?: number) => Promise<Phase & { port?: number }>][] = [
  ['a --data directory', async (sb) => {
    const target = localTarget(sb.dataDir, () => new Date(), { packing: 'inline', indexing: 'inline' });
    let opened: LineageStorage | null = null;
    return {
      target,
      storage: async () => (opened ??= await openStorage(storageConfigFrom({}, { data: sb.dataDir }))),
      // As the CLI process of each sync exits: the data directory's database handle closed.
      close: async () => { await opened?.close(); closeDatabase(openDatabase(sb.dataDir)); },
    };
  }],
  ['a served instance over HTTP', async (sb, port) => {
    // The instance after the restore listens where the first did: the machines' target is the same server.
    const server: LineageServer = await createLineageServer({ dataDir: sb.dataDir, secret: randomBytes(32), port: port ?? 0, ui: false, log: () => undefined });
    const keyFile = path.join(sb.root, 'key');
    const key = await fs.readFile(keyFile, 'utf8').catch(async () => {
      const { key: made } = await server.service.storage.createApiKey({ name: 'backup', now: new Date() });
      await fs.writeFile(keyFile, made);
      return made;
    });
    return {
      target: httpTarget({ baseUrl: `${server.url}/v1`, apiKey: key }),
      storage: async () => server.service.storage,
      close: () => server.close(),
      port: Number(new URL(server.url).port),
    };
  }],
];

/**
 * A machine's client state as a refused sync must leave it: every file, and the bytes of each but
 * the store's log (a sync writes the next state's lines there before it uploads; they stay dead
 * bytes until the index names them), as tests/server/two-machines.test.ts reads it.
 */
async function clientState(alfHome: string): Promise<Map<string, string>> {
  const tree = await readTree(alfHome, []);
  return new Map([...tree].map(([file, bytes]) => [file, file.endsWith('.log') ? '' : bytes.toString('base64')]));
}

/** MEMORY.md's `## ` sections as the records hold them (OpenClaw: one record per section). */
const sections = (text: string) => text.split(/\n(?=## )/).slice(1).map((s) => s.trimEnd());

describe.each(SETUPS)('a server restored from a backup, two machines: %s', (_name, make) => {
  it('machine 1, at the sequence machine 2 brought the restored ledger back to, is refused, nothing changes; after a rebase its sync is taken and the head agrees with itself', async () => {
    const sb = await makeSandbox('lineage-restored-backup-');
    const ws1 = sb.workspace;
    const home1 = path.join(sb.root, 'home-1');
    const ws2 = path.join(sb.root, 'ws-2');
    const home2 = path.join(sb.root, 'home-2');
    // One clock for both machines (their clocks agree), a minute per reading.
    const clock = steppingClock();
    let phase = await make(sb);
    const sync1 = () => syncWorkspace({ runtime: 'openclaw', workspace: ws1, target: phase.target, alfHome: home1, clock });
    const sync2 = () => syncWorkspace({ runtime: 'openclaw', workspace: ws2, target: phase.target, alfHome: home2, clock });
    const memory1 = (names: string[]) => `# M\n\n## Base\nshared start\n${names.map((n) => `\n## ${n}\nfact ${n}\n`).join('')}`;
    try {
      await sb.write('MEMORY.md', memory1([]));
      const agentId = (await sync1()).agent.alf_agent_id;
      await sb.write('MEMORY.md', memory1(['Alpha']));
      expect(await sync1()).toMatchObject({ sequence: 1, delta: true });
      const backup = path.join(sb.root, 'backup');
      expect(await backupDataDir({ dataDir: sb.dataDir, out: backup })).toMatchObject({ sequence_by_agent: { [agentId]: 1 } });
      await sb.write('MEMORY.md', memory1(['Alpha', 'heron-1']));
      expect(await sync1()).toMatchObject({ sequence: 2, delta: true });
      await sb.write('MEMORY.md', memory1(['Alpha', 'heron-1', 'heron-2']));
      expect(await sync1()).toMatchObject({ sequence: 3, delta: true });

      // The operator puts the backup back into place: the ledger ends at 1.
      await phase.close();
      await fs.rm(sb.dataDir, { recursive: true });
      await fs.cp(backup, sb.dataDir, { recursive: true });
      phase = await make(sb, (phase as { port?: number }).port);

      // Machine 2 restores the head into its workspace and syncs twice: the ledger is at 3 again.
      expect(await restoreAgent({ runtime: 'openclaw', target: phase.target, agentId, workspace: ws2, replace: false, alfHome: home2, clock })).toMatchObject({ sequence: 1, applied: true });
      const memory2 = (names: string[]) => `${memory1(['Alpha'])}${names.map((n) => `\n## ${n}\nfact ${n}\n`).join('')}`;
      await fs.writeFile(path.join(ws2, 'MEMORY.md'), memory2(['badger-1']));
      expect(await sync2()).toMatchObject({ sequence: 2, delta: true });
      await fs.writeFile(path.join(ws2, 'MEMORY.md'), memory2(['badger-1', 'badger-2']));
      expect(await sync2()).toMatchObject({ sequence: 3, delta: true });

      // Machine 1, at 3 from before the restore, edits and syncs: refused, nothing changes.
      await sb.write('MEMORY.md', memory1(['Alpha', 'heron-1', 'heron-2', 'heron-3']));
      const s = await phase.storage();
      const entriesBefore = await s.listEntries({ agentId });
      const homeBefore = await clientState(home1);
      const wsBefore = await readTree(ws1, []);
      const refused = await sync1().then(() => null, (e: unknown) => e as { code: string; message: string; hint: string });
      expect(refused).toMatchObject({ code: 'sync_upload_failed' });
      expect(refused!.message).toMatch(new RegExp(`^Sequence conflict: the entry at sequence 3 on .* for agent ${agentId} is not the one this machine synced: it is a delta made after this machine's base at that sequence .*; this machine's delta, built on its own entry, was refused and nothing was uploaded or changed here$`));
      expect(refused!.message).not.toMatch(/full snapshot/);
      expect(refused!.hint).toContain(`run \`lineage sync --rebase -r openclaw -w ${ws1} ${phase.target.flags}\` to take sequence 3 there as this machine's base without changing the workspace`);
      expect(await s.listEntries({ agentId })).toEqual(entriesBefore);
      expect(await clientState(home1)).toEqual(homeBefore);
      expect(await readTree(ws1, [])).toEqual(wsBefore);
      expect(Buffer.from((await s.getWorkspaceFile({ agentId, seq: 3, path: 'MEMORY.md' }))!).toString()).toBe(memory2(['badger-1', 'badger-2']));
      expect((await s.search({ q: 'heron', agentId })).total).toBe(0);

      // Machine 1 rebases and syncs: its workspace at the head, records, file and search agreeing.
      expect(await rebaseWorkspace({ runtime: 'openclaw', workspace: ws1, target: phase.target, alfHome: home1, clock })).toMatchObject({ sequence: 3, previous_sequence: 3 });
      expect(await sync1()).toMatchObject({ sequence: 4, delta: true, changes: { creates: 3, updates: 0, deletes: 2 } });
      const head = memory1(['Alpha', 'heron-1', 'heron-2', 'heron-3']);
      const records = await s.getRecordsAt({ agentId, at: 4 });
      expect((records as { items: { content: string }[] }).items.map((r) => r.content.trimEnd()).sort()).toEqual(sections(head).sort());
      expect(Buffer.from((await s.getWorkspaceFile({ agentId, seq: 4, path: 'MEMORY.md' }))!).toString()).toBe(head);
      expect((await s.search({ q: 'heron-1', agentId })).status).toMatchObject({ present: true, last_seen_sequence: 4 });
      expect((await s.search({ q: 'badger-1', agentId })).status).toMatchObject({ present: false, gone_at_sequence: 4 });
      const out = path.join(sb.root, 'restored');
      await restoreAgent({ runtime: 'openclaw', target: phase.target, agentId, out, replace: false, alfHome: path.join(sb.root, 'home-r'), clock });
      expect(await readTree(out)).toEqual(await readTree(ws1));
    } finally {
      await phase.close();
      await sb.cleanup();
    }
  }, 180_000);

  it('machine 1 idle after the restore: a server is asked and says it is behind (refused, nothing changes; a rebase and a sync bring the lost facts back); a --data directory is not asked', async () => {
    const sb = await makeSandbox('lineage-restored-backup-idle-');
    const home1 = path.join(sb.root, 'home-1');
    const clock = steppingClock();
    let phase = await make(sb);
    const sync1 = () => syncWorkspace({ runtime: 'openclaw', workspace: sb.workspace, target: phase.target, alfHome: home1, clock });
    const memory = (names: string[]) => `# M\n\n## Base\nshared start\n${names.map((n) => `\n## ${n}\nfact ${n}\n`).join('')}`;
    try {
      await sb.write('MEMORY.md', memory([]));
      const agentId = (await sync1()).agent.alf_agent_id;
      const backup = path.join(sb.root, 'backup');
      expect(await backupDataDir({ dataDir: sb.dataDir, out: backup })).toMatchObject({ sequence_by_agent: { [agentId]: 0 } });
      await sb.write('MEMORY.md', memory(['heron-1']));
      expect(await sync1()).toMatchObject({ sequence: 1, delta: true });
      await sb.write('MEMORY.md', memory(['heron-1', 'heron-2']));
      expect(await sync1()).toMatchObject({ sequence: 2, delta: true });
      await phase.close();
      await fs.rm(sb.dataDir, { recursive: true });
      await fs.cp(backup, sb.dataDir, { recursive: true });
      phase = await make(sb, (phase as { port?: number }).port);

      // Nothing changed in the workspace since its last sync.
      const homeBefore = await clientState(home1);
      const wsBefore = await readTree(sb.workspace, []);
      const idle = await sync1().then((output) => ({ output }), (error: unknown) => ({ error: error as { code: string; message: string; hint: string } }));
      if (!phase.target.flags.startsWith('--server')) {
        // The user's own data directory, put back by the user: not asked (an idle sync opens nothing); its next change is refused.
        expect(idle).toMatchObject({ output: { ok: true, sequence: 2, no_changes: true } });
        return;
      }
      expect(idle).toMatchObject({ error: { code: 'sync_upload_failed' } });
      const refused = (idle as { error: { message: string; hint: string } }).error;
      expect(refused.message).toMatch(new RegExp(`^Sequence conflict: this machine's state for agent ${agentId} is at sequence 2, but .* is at sequence 0, behind it: the entries after 0 that this machine synced are not there \\(its storage restored from a backup taken before them`));
      expect(refused.hint).toContain(`lineage sync --rebase -r openclaw -w ${sb.workspace} ${phase.target.flags}`);
      const s = await phase.storage();
      expect((await s.listEntries({ agentId })).map((e) => e.seq)).toEqual([0]);
      expect(await clientState(home1)).toEqual(homeBefore);
      expect(await readTree(sb.workspace, [])).toEqual(wsBefore);
      expect(await rebaseWorkspace({ runtime: 'openclaw', workspace: sb.workspace, target: phase.target, alfHome: home1, clock })).toMatchObject({ sequence: 0, previous_sequence: 2 });
      expect(await sync1()).toMatchObject({ sequence: 1, delta: true, changes: { creates: 2, updates: 0, deletes: 0 } });
      expect((await s.search({ q: 'heron-2', agentId })).status).toMatchObject({ present: true, last_seen_sequence: 1 });
      // In step again: idle is idle.
      expect(await sync1()).toMatchObject({ ok: true, sequence: 1, no_changes: true });
      // A server out of reach cannot be asked: idle as before, said in a warning.
      await phase.close();
      phase = { ...phase, close: async () => {} };
      expect(await sync1()).toMatchObject({
        ok: true, sequence: 1, no_changes: true,
        warnings: [expect.stringMatching(/^nothing to sync, but .* could not be asked whether it still holds sequence 1: cannot reach the server/)],
      });
    } finally {
      await phase.close();
      await sb.cleanup();
    }
  }, 180_000);
});
