/**
 * `lineage backup` (lib/ledger/backup.ts) on a live data directory: a real `lineage serve` taking
 * uploads while the backup runs, the backup as a real process (stopped at its snapshot and killed
 * mid-way through `LINEAGE_BACKUP_STOP_AT`), the copy checked by `lineage doctor` and served by a
 * second real server.
 */
import { spawn, spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { FsBlobStore } from '@/lib/ledger/blob-store';
import { hasExited, isStopped, waitUntil } from '@/lib/ledger/testing/packer-process';
import { makeSandbox, readTree } from '@/lib/sync/testing/workspace';
import { deltaBytes, snapshotBytes } from '@/tests/server/archives';
import { call, issueKey, spawnServer, type ChildServer } from '@/tests/server/harness';
import { inMountNamespace, runCli, type CliRun } from './run-cli';

const ROOT = path.resolve(__dirname, '../..');
const BIN = path.join(ROOT, 'bin', 'lineage.mjs');
const OCTET = 'application/octet-stream';

const roots: string[] = [];
const servers: ChildServer[] = [];
afterAll(async () => {
  for (const s of servers) await s.kill();
  for (const r of roots) fs.rmSync(r, { recursive: true, force: true });
});

function tempRoot(): string {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'lineage-backup-test-'));
  roots.push(root);
  return root;
}

/** `lineage backup` started as a process (its pid is the backup's: the bin runs the CLI in itself). */
function startBackup(args: string[], env: Record<string, string> = {}) {
  const child = spawn(process.execPath, [BIN, 'backup', ...args], { cwd: ROOT, env: { ...process.env, ...env } });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const done = new Promise<CliRun>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr, json: JSON.parse(stdout.trim().split('\n').at(-1) || '{}') as Record<string, unknown> }));
  });
  return { child, done };
}

interface Row { agent_id: string; seq: number; kind: string; blob_key: string; sha256: string }
function ledgerRows(dataDir: string): Row[] {
  const db = new Database(path.join(dataDir, 'lineage.db'), { readonly: true });
  try {
    return db.prepare('SELECT agent_id, seq, kind, blob_key, sha256 FROM ledger_entries ORDER BY agent_id, seq, kind').all() as Row[];
  } finally {
    db.close();
  }
}

/** A data directory with a real server on it and one agent synced to sequence `deltas`. */
async function servedDataDir(deltas: number) {
  const root = tempRoot();
  const dataDir = path.join(root, 'data');
  fs.mkdirSync(dataDir);
  const key = issueKey(dataDir);
  const server = await spawnServer(dataDir);
  servers.push(server);
  const agent = randomUUID();
  const reg = await call(`${server.url}/v1/agents`, { method: 'POST', key, contentType: 'application/json', body: JSON.stringify({ id: agent, name: 'backed up', source_runtime: 'openclaw' }) });
  expect(reg.status).toBe(201);
  expect((await call(`${server.url}/v1/agents/${agent}/snapshot`, { method: 'PUT', key, contentType: OCTET, body: await snapshotBytes(agent, { records: 40 }) })).status).toBe(201);
  for (let seq = 1; seq <= deltas; seq++) {
    const reply = await call(`${server.url}/v1/agents/${agent}/deltas?base_sequence=${seq - 1}`, { method: 'POST', key, contentType: OCTET, body: await deltaBytes(agent, seq - 1, seq) });
    expect(reply.status).toBe(201);
  }
  return { root, dataDir, key, server, agent };
}

/** Deltas pushed one after another until `stop()`: what was acknowledged, in order. */
function keepUploading(url: string, key: string, agent: string, from: number) {
  const acknowledged: number[] = [];
  let stopped = false;
  const running = (async () => {
    let base = from;
    while (!stopped) {
      const reply = await call(`${url}/v1/agents/${agent}/deltas?base_sequence=${base}`, { method: 'POST', key, contentType: OCTET, body: await deltaBytes(agent, base, base + 1) });
      expect(reply.status, JSON.stringify(reply.json)).toBe(201);
      base += 1;
      acknowledged.push(base);
    }
  })();
  return { acknowledged, latest: () => acknowledged.at(-1) ?? from, stop: async () => { stopped = true; await running; } };
}

/** The bytes behind a restore plan's URLs, fetched from `origin` (a signed URL keeps its path and query). */
async function planBytes(plan: Record<string, unknown>, origin: string): Promise<Buffer[]> {
  const urls = [(plan.snapshot as { url: string }).url, ...(plan.deltas as { url: string }[]).map((d) => d.url)];
  const out: Buffer[] = [];
  for (const u of urls) {
    const parsed = new URL(u);
    const res = await fetch(`${origin}${parsed.pathname}${parsed.search}`);
    expect(res.status, u).toBe(200);
    out.push(Buffer.from(await res.arrayBuffer()));
  }
  return out;
}

describe('lineage backup of a data directory a server keeps writing', () => {
  it('holds exactly the snapshot it began with while uploads go on; doctor finds it clean; a server on it serves the same agents, sequences and downloads', async () => {
    const { root, dataDir, key, server, agent } = await servedDataDir(70);
    const out = path.join(root, 'backup');
    const writer = keepUploading(server.url, key, agent, 70);
    await waitUntil('the writer acknowledges an upload', () => writer.acknowledged.length > 0);
    const ackedBeforeBackup = writer.latest();
    const backup = startBackup(['--data', dataDir, '--out', out], { LINEAGE_BACKUP_STOP_AT: 'snapshot' });
    await waitUntil('the backup stops with its snapshot taken', () => isStopped(backup.child.pid!));
    const ackedAtStop = writer.latest();
    // The held snapshot blocks no writer: three more uploads are acknowledged while the backup waits in it.
    await waitUntil('three uploads acknowledged past the snapshot', () => writer.latest() >= ackedAtStop + 3);
    backup.child.kill('SIGCONT');
    const run = await backup.done;
    await writer.stop();
    expect(run.json, run.stderr).toMatchObject({ ok: true, out, agents: 1, files: ['server-secret'] });
    const latest = (run.json.sequence_by_agent as Record<string, number>)[agent]!;
    // Everything acknowledged before the backup began is in it; nothing sent after its snapshot was taken
    // (ackedAtStop + 2 was sent only once ackedAtStop + 1 was acknowledged, after the stop) is.
    expect(latest).toBeGreaterThanOrEqual(ackedBeforeBackup);
    expect(latest).toBeLessThanOrEqual(ackedAtStop + 1);
    expect(writer.latest()).toBeGreaterThan(latest + 1);
    // Exactly the source's ledger up to that sequence, entry by entry (key and sha256): the snapshot's, no more, no gap.
    const source = ledgerRows(dataDir);
    const copied = ledgerRows(out);
    expect(copied).toEqual(source.filter((r) => r.seq <= latest));
    expect(copied.map((r) => r.seq)).toEqual(Array.from({ length: latest + 1 }, (_, i) => i));
    expect(run.json).toMatchObject({ entries: latest + 1, blobs: latest + 1 });
    // The blobs as they were at rest (the server packs at put), and none the snapshot does not name.
    const blobFiles = fs.readdirSync(path.join(out, 'blobs'));
    expect(blobFiles.length).toBe(latest + 1);
    expect(blobFiles.some((n) => n.endsWith('.packed'))).toBe(true);
    const sourceStore = new FsBlobStore(path.join(dataDir, 'blobs'));
    for (const r of copied) expect(blobFiles).toContain(path.basename(sourceStore.fileOf(r.blob_key)!));
    // Real copies: no blob file shares its inode with the source's.
    for (const name of blobFiles) expect(fs.statSync(path.join(out, 'blobs', name)).ino).not.toBe(fs.statSync(path.join(dataDir, 'blobs', name)).ino);
    // The secret, same bytes, still 0600; no temporary directory left beside the backup.
    expect(fs.readFileSync(path.join(out, 'server-secret'))).toEqual(fs.readFileSync(path.join(dataDir, 'server-secret')));
    expect(fs.statSync(path.join(out, 'server-secret')).mode & 0o777).toBe(0o600);
    expect(fs.readdirSync(root).sort()).toEqual(['backup', 'data']);

    const doctor = await runCli(['doctor', '--data', out]);
    expect(doctor.json, doctor.stderr).toMatchObject({ ok: true, damaged: [], unledgered: [], leftovers: [] });

    // Restore = serve the backup: same agent, same sequence, same bytes behind the same plan, and the
    // source server's signed URLs are good there (the same server-secret).
    const restored = await spawnServer(out);
    servers.push(restored);
    const agents = await call(`${restored.url}/v1/agents`, { key });
    expect(agents.status).toBe(200);
    expect(JSON.stringify(agents.json)).toContain(agent);
    const info = await call(`${restored.url}/v1/agents/${agent}`, { key });
    expect(info.json).toMatchObject({ latest_sequence: latest });
    const fromSource = await call(`${server.url}/v1/agents/${agent}/restore?up_to_sequence=${latest}`, { key });
    const fromBackup = await call(`${restored.url}/v1/agents/${agent}/restore`, { key });
    expect(fromBackup.status).toBe(200);
    const sourceBytes = await planBytes(fromSource.json, server.url);
    expect(await planBytes(fromBackup.json, restored.url)).toEqual(sourceBytes);
    expect(await planBytes(fromSource.json, restored.url)).toEqual(sourceBytes);
    await restored.stop();
  }, 240_000);

  it('a backup killed mid-way leaves nothing at its destination; the next one to it is whole and takes the leftover temporary away', async () => {
    const { root, dataDir } = await servedDataDir(5);
    const out = path.join(root, 'backup');
    const backup = startBackup(['--data', dataDir, '--out', out], { LINEAGE_BACKUP_STOP_AT: 'blobs' });
    await waitUntil('the backup stops after its first blob', () => isStopped(backup.child.pid!));
    backup.child.kill('SIGKILL');
    await backup.done;
    await waitUntil('the backup is gone', () => hasExited(backup.child.pid!));
    expect(fs.existsSync(out)).toBe(false);
    const leftovers = fs.readdirSync(root).filter((n) => n.startsWith('.backup.backup-'));
    expect(leftovers).toHaveLength(1);
    // What it held was a database and part of the blobs: never under the destination's name.
    expect(fs.readdirSync(path.join(root, leftovers[0]!)).sort()).toEqual(['blobs', 'lineage.db']);

    const again = await runCli(['backup', '--data', dataDir, '--out', out]);
    expect(again.json, again.stderr).toMatchObject({ ok: true, entries: 6 });
    expect(fs.readdirSync(root).sort()).toEqual(['backup', 'data']);
    const doctor = await runCli(['doctor', '--data', out]);
    expect(doctor.json, doctor.stderr).toMatchObject({ ok: true });
  }, 180_000);

  it('an agent deleted after the snapshot: its blobs are gone, the backup fails saying so (not as damage) and leaves nothing; the next one is whole', async () => {
    const { root, dataDir, key, server, agent } = await servedDataDir(3);
    const out = path.join(root, 'backup');
    const backup = startBackup(['--data', dataDir, '--out', out], { LINEAGE_BACKUP_STOP_AT: 'snapshot' });
    await waitUntil('the backup stops with its snapshot taken', () => isStopped(backup.child.pid!));
    expect((await call(`${server.url}/v1/agents/${agent}`, { method: 'DELETE', key })).status).toBe(200);
    backup.child.kill('SIGCONT');
    const run = await backup.done;
    expect(run.json).toMatchObject({ ok: false, code: 'backup_failed', hint: 'run lineage backup again: the next snapshot no longer holds that agent' });
    expect(run.json.error).toMatch(new RegExp(`^agent ${agent} was deleted after the backup's snapshot was taken`));
    expect(fs.readdirSync(root).sort()).toEqual(['data']);
    const again = await runCli(['backup', '--data', dataDir, '--out', out]);
    expect(again.json, again.stderr).toMatchObject({ ok: true, agents: 0, entries: 0 });
  }, 180_000);

  it('two backups to one destination: the first to finish is put there, the other fails saying so and leaves nothing of its own', async () => {
    const { root, dataDir } = await servedDataDir(3);
    const out = path.join(root, 'backup');
    const first = startBackup(['--data', dataDir, '--out', out], { LINEAGE_BACKUP_STOP_AT: 'blobs' });
    const second = startBackup(['--data', dataDir, '--out', out], { LINEAGE_BACKUP_STOP_AT: 'blobs' });
    await waitUntil('both backups stop after their first blob', () => isStopped(first.child.pid!) && isStopped(second.child.pid!));
    first.child.kill('SIGCONT');
    const won = await first.done;
    expect(won.json, won.stderr).toMatchObject({ ok: true, entries: 4 });
    const inPlace = fs.readdirSync(path.join(out, 'blobs')).sort();
    second.child.kill('SIGCONT');
    const lost = await second.done;
    expect(lost.json).toMatchObject({ ok: false, code: 'backup_failed', error: `${out} was filled while this backup ran (another backup to it, or something else written there): this backup was not put in its place; nothing of it was left` });
    expect(fs.readdirSync(root).sort()).toEqual(['backup', 'data']);
    expect(fs.readdirSync(path.join(out, 'blobs')).sort()).toEqual(inPlace);
    const doctor = await runCli(['doctor', '--data', out]);
    expect(doctor.json, doctor.stderr).toMatchObject({ ok: true });
  }, 180_000);

  it('a blob the source lacks or holds damaged fails the backup naming it, and leaves nothing', async () => {
    const { root, dataDir, server, agent } = await servedDataDir(3);
    await server.stop();
    const store = new FsBlobStore(path.join(dataDir, 'blobs'));
    const rows = ledgerRows(dataDir);
    const out = path.join(root, 'backup');

    // Damaged: the snapshot's file (whole at rest: a group's first blob) cut short.
    const snapshot = rows.find((r) => r.kind === 'snapshot')!;
    const file = store.fileOf(snapshot.blob_key)!;
    const bytes = fs.readFileSync(file);
    fs.writeFileSync(file, bytes.subarray(0, bytes.length - 10));
    const damaged = await runCli(['backup', '--data', dataDir, '--out', out]);
    expect(damaged.code).toBe(1);
    expect(damaged.json).toMatchObject({ ok: false, code: 'backup_failed' });
    expect(damaged.json.error).toContain(`the snapshot of agent ${agent} at sequence 0 (blob ${snapshot.blob_key}) in ${path.join(dataDir, 'blobs')} is damaged`);
    expect(damaged.json.hint).toContain('lineage doctor');
    expect(fs.readdirSync(root).sort()).toEqual(['data']);
    fs.writeFileSync(file, bytes);

    // Missing: the last delta's file gone.
    const last = rows.at(-1)!;
    const lastFile = store.fileOf(last.blob_key)!;
    const lastBytes = fs.readFileSync(lastFile);
    fs.rmSync(lastFile);
    const missing = await runCli(['backup', '--data', dataDir, '--out', out]);
    expect(missing.json).toMatchObject({ ok: false, code: 'backup_failed' });
    expect(missing.json.error).toContain(`the delta of agent ${agent} at sequence 3 (blob ${last.blob_key}) is missing from ${path.join(dataDir, 'blobs')}`);
    expect(missing.json.hint).toContain('lineage doctor');
    expect(fs.readdirSync(root).sort()).toEqual(['data']);
    fs.writeFileSync(lastFile, lastBytes);

    const fine = await runCli(['backup', '--data', dataDir, '--out', out]);
    expect(fine.json, fine.stderr).toMatchObject({ ok: true, entries: 4 });
  }, 180_000);
});

describe('lineage backup of a data directory a `lineage sync` loop keeps writing', () => {
  it('holds the ledger as of its snapshot (a prefix of the source\'s), doctor-clean; a restore from it gives the workspace the source gives at that sequence', async () => {
    const sb = await makeSandbox('lineage-backup-sync-');
    roots.push(sb.root);
    const env = { ALF_HOME: sb.alfHome };
    const args = ['sync', '-r', 'openclaw', '-w', sb.workspace, '--data', sb.dataDir];
    const edit = async (n: number) => {
      for (let f = 0; f < 4; f++) await sb.write(`memory/topic-${f}.md`, `# Topic ${f}\n\n${Array.from({ length: 8 }, (_, i) => `## Fact ${i}\nFact ${i} of topic ${f}, version ${i === n % 8 ? n : 0}.\n`).join('\n')}`);
    };
    await sb.write('MEMORY.md', '# M\n\n## Gateway\nThe gateway is 10.20.0.5.\n');
    await edit(0);
    const first = await runCli(args, env);
    expect(first.json, first.stderr).toMatchObject({ ok: true, sequence: 0 });
    const agent = (first.json.agent as { alf_agent_id: string }).alf_agent_id;
    const synced: number[] = [0];
    let stopped = false;
    const loop = (async () => {
      for (let n = 1; !stopped; n++) {
        await edit(n);
        const run = await runCli(args, env);
        expect(run.json, run.stderr).toMatchObject({ ok: true, sequence: n });
        synced.push(n);
      }
    })();
    await waitUntil('the loop syncs once more', () => synced.length > 2);
    const before = synced.at(-1)!;
    const out = path.join(sb.root, 'backup');
    const backup = startBackup(['--data', sb.dataDir, '--out', out], { LINEAGE_BACKUP_STOP_AT: 'snapshot' });
    await waitUntil('the backup stops with its snapshot taken', () => isStopped(backup.child.pid!));
    const atStop = synced.at(-1)!;
    await waitUntil('two syncs past the snapshot', () => synced.at(-1)! >= atStop + 2);
    backup.child.kill('SIGCONT');
    const run = await backup.done;
    stopped = true;
    await loop;
    expect(run.json, run.stderr).toMatchObject({ ok: true, agents: 1 });
    const latest = (run.json.sequence_by_agent as Record<string, number>)[agent]!;
    expect(latest).toBeGreaterThanOrEqual(before);
    expect(latest).toBeLessThanOrEqual(atStop + 1);
    expect(synced.at(-1)!).toBeGreaterThan(latest + 1);
    expect(ledgerRows(out)).toEqual(ledgerRows(sb.dataDir).filter((r) => r.seq <= latest));
    const doctor = await runCli(['doctor', '--data', out]);
    expect(doctor.json, doctor.stderr).toMatchObject({ ok: true, damaged: [], unledgered: [] });
    const fromBackup = await runCli(['restore', '--agent', agent, '--out', path.join(sb.root, 'r-backup'), '--data', out], env);
    const fromSource = await runCli(['restore', '--agent', agent, '--at-sequence', String(latest), '--out', path.join(sb.root, 'r-source'), '--data', sb.dataDir], env);
    expect(fromBackup.json, fromBackup.stderr).toMatchObject({ ok: true, sequence: latest });
    expect(fromSource.json, fromSource.stderr).toMatchObject({ ok: true, sequence: latest });
    expect(await readTree(path.join(sb.root, 'r-backup'))).toEqual(await readTree(path.join(sb.root, 'r-source')));
  }, 240_000);
});

describe('a data directory put back from a backup taken before a client\'s last sync', () => {
  it('the client\'s next sync that uploads is refused saying the storage is behind it, nothing stored; `sync --rebase` and a sync bring the workspace back at the head', async () => {
    const sb = await makeSandbox('lineage-backup-behind-');
    roots.push(sb.root);
    const env = { ALF_HOME: sb.alfHome };
    const args = ['sync', '-r', 'openclaw', '-w', sb.workspace, '--data', sb.dataDir];
    const facts: string[] = [];
    const addFact = async (fact: string) => {
      facts.push(fact);
      await sb.write('MEMORY.md', `# M\n\n${facts.map((f, i) => `## Fact ${i}\n${f}\n`).join('\n')}`);
    };
    await addFact('The gateway is 10.20.0.5.');
    expect((await runCli(args, env)).json).toMatchObject({ ok: true, sequence: 0 });
    await addFact('The backup host is called heron.');
    const one = await runCli(args, env);
    expect(one.json, one.stderr).toMatchObject({ ok: true, sequence: 1 });
    const agent = (one.json.agent as { alf_agent_id: string }).alf_agent_id;
    const out = path.join(sb.root, 'backup');
    const backup = await runCli(['backup', '--data', sb.dataDir, '--out', out]);
    expect(backup.json, backup.stderr).toMatchObject({ ok: true, sequence_by_agent: { [agent]: 1 } });
    for (const [n, fact] of ['The printer is marmalade-falcon.', 'Standup moved to 09:30.'].entries()) {
      await addFact(fact);
      expect((await runCli(args, env)).json).toMatchObject({ ok: true, sequence: 2 + n });
    }
    // The operator puts the backup back into place (README, "Backups"): the ledger ends at 1.
    fs.rmSync(sb.dataDir, { recursive: true });
    fs.cpSync(out, sb.dataDir, { recursive: true });
    const restored = ledgerRows(sb.dataDir);
    await addFact('Written after the restore: ocelot-ninety.');
    const refused = await runCli(args, env);
    expect(refused.code).toBe(1);
    expect(refused.json).toMatchObject({ ok: false, code: 'sync_upload_failed' });
    expect(refused.json.error).toMatch(new RegExp(`^Sequence conflict: this machine's state for agent ${agent} is at sequence 3, but .* is at sequence 1, behind it: the entries after 1 that this machine synced are not there \\(its storage restored from a backup taken before them`));
    expect(refused.json.error).not.toMatch(/another machine synced/);
    expect(refused.json.hint).toContain(`lineage sync --rebase -r openclaw -w ${sb.workspace} --data ${sb.dataDir}`);
    expect(refused.json.hint).toMatch(/`lineage doctor --repair` there brings those entries back whole: ask its operator first, then a plain `lineage sync` goes on$/);
    expect(ledgerRows(sb.dataDir)).toEqual(restored);
    const rebased = await runCli(['sync', '--rebase', '-r', 'openclaw', '-w', sb.workspace, '--data', sb.dataDir], env);
    expect(rebased.json, rebased.stderr).toMatchObject({ ok: true, rebased: true, sequence: 1, previous_sequence: 3 });
    const after = await runCli(args, env);
    expect(after.json, after.stderr).toMatchObject({ ok: true, sequence: 2, delta: true, changes: { creates: 3, updates: 0, deletes: 0 } });
    const head = await runCli(['restore', '--agent', agent, '--out', path.join(sb.root, 'head'), '--data', sb.dataDir], env);
    expect(head.json, head.stderr).toMatchObject({ ok: true, sequence: 2 });
    expect(await readTree(path.join(sb.root, 'head'))).toEqual(await readTree(sb.workspace));
  }, 120_000);
});

describe('lineage backup of a database this version has not migrated', () => {
  it('copies it as it is and leaves the source unmigrated; the copy is migrated when it is opened as a data directory', async () => {
    const { root, dataDir, server } = await servedDataDir(2);
    await server.stop();
    // As the previous version left it: the latest migration, 0021 (the ended_sessions table), not applied.
    // A later migration must be undone here instead (the journal says which is the latest).
    const journal = JSON.parse(fs.readFileSync(path.join(process.cwd(), 'db/migrations/meta/_journal.json'), 'utf8')) as { entries: { tag: string }[] };
    expect(journal.entries.at(-1)?.tag, 'undo the latest migration in this test').toBe('0021_ended_sessions');
    const raw = new Database(path.join(dataDir, 'lineage.db'));
    raw.exec('DROP TABLE ended_sessions; DELETE FROM __drizzle_migrations WHERE created_at = (SELECT max(created_at) FROM __drizzle_migrations)');
    raw.close();
    const schemaOf = (dir: string) => {
      const db = new Database(path.join(dir, 'lineage.db'), { readonly: true });
      try {
        return {
          migrations: db.prepare('SELECT count(*) FROM __drizzle_migrations').pluck().get(),
          endedSessions: db.prepare("SELECT count(*) FROM sqlite_master WHERE name = 'ended_sessions'").pluck().get(),
        };
      } finally {
        db.close();
      }
    };
    const before = schemaOf(dataDir);
    expect(before.endedSessions).toBe(0);
    const out = path.join(root, 'backup');
    const run = await runCli(['backup', '--data', dataDir, '--out', out]);
    expect(run.json, run.stderr).toMatchObject({ ok: true, entries: 3 });
    expect(schemaOf(dataDir)).toEqual(before);
    expect(schemaOf(out)).toEqual(before);
    const doctor = await runCli(['doctor', '--data', out]);
    expect(doctor.json, doctor.stderr).toMatchObject({ ok: true });
    expect(schemaOf(out)).toEqual({ migrations: (before.migrations as number) + 1, endedSessions: 1 });
  }, 120_000);
});

describe('lineage backup onto a disk that fills up', () => {
  it('fails naming the lack of space at the destination, and leaves nothing there', async () => {
    const { root, dataDir, key, server, agent } = await servedDataDir(0);
    // Three large incompressible deltas: more than the small disk holds.
    for (let seq = 1; seq <= 3; seq++) {
      const reply = await call(`${server.url}/v1/agents/${agent}/deltas?base_sequence=${seq - 1}`, { method: 'POST', key, contentType: OCTET, body: await deltaBytes(agent, seq - 1, seq, { rawBytes: 300_000 }) });
      expect(reply.status).toBe(201);
    }
    await server.stop();
    const small = path.join(root, 'small');
    fs.mkdirSync(small);
    const result = await inMountNamespace([
      `mount -t tmpfs -o size=640k tmpfs "${small}"`,
      `"${process.execPath}" "${BIN}" backup --data "${dataDir}" --out "${small}/backup" || true`,
      `ls -A "${small}" > "${root}/left"`,
    ].join('\n'), {});
    const lines = result.stdout.trim().split('\n').filter((l) => l.startsWith('{'));
    expect(lines, result.stderr).toHaveLength(1);
    const run = JSON.parse(lines[0]!) as Record<string, unknown>;
    expect(run).toMatchObject({ ok: false, code: 'backup_failed', hint: 'free some space on that disk (or pass --out a directory on another one), then run lineage backup again' });
    expect(run.error).toMatch(new RegExp(`^cannot write the backup at ${small}/backup: its disk is full \\((ENOSPC|SQLITE_FULL)\\); nothing was left there$`));
    expect(fs.readFileSync(path.join(root, 'left'), 'utf8')).toBe('');
  }, 120_000);
});

/**
 * `lineage backup` as an ordinary user (the tests run as root, whom permission bits do not stop): in a
 * user namespace of its own as uid 1000, which this machine's root is mapped to — it owns every file
 * the test made and holds no capability, so a directory's mode bits apply to it as to its owner.
 */
async function backupAsUser(args: string[]): Promise<CliRun> {
  const child = spawn('unshare', ['-U', '--map-user=1000', '--map-group=1000', process.execPath, BIN, 'backup', ...args], { cwd: ROOT, env: process.env });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const code = await new Promise<number | null>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', resolve);
  });
  const lines = stdout.trim().split('\n').filter(Boolean);
  expect(lines, stderr).toHaveLength(1);
  return { code, stdout, stderr, json: JSON.parse(lines[0]!) as Record<string, unknown> };
}

/** The temporary directory a backup to `out` killed in process `pid` left (the name backupDataDir gives it). */
function leftoverOf(out: string, pid: number): string {
  return path.join(path.dirname(out), `.${path.basename(out)}.backup-${pid}-0badf00d`);
}

/** A pid no process has: a child that has run and been reaped. */
function deadPid(): number {
  const child = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' });
  return Number(child.stdout);
}

const WRITE_HINT = 'pass --out a directory this user can write, then run lineage backup again';

describe('lineage backup to a destination this user cannot write', () => {
  it('EACCES: fails in words (a new or an empty directory, also beside a killed backup\'s leftover), leaves nothing, the source unchanged; a directory it cannot list is refused before anything is written', async () => {
    const { root, dataDir, server } = await servedDataDir(1);
    await server.stop();
    const source = await readTree(dataDir, []);

    const locked = path.join(root, 'locked');
    fs.mkdirSync(locked);
    fs.mkdirSync(path.join(locked, 'empty'));
    const leftover = leftoverOf(path.join(locked, 'b'), deadPid());
    fs.mkdirSync(leftover);
    fs.writeFileSync(path.join(leftover, 'lineage.db'), 'half a backup');
    fs.chmodSync(locked, 0o555);
    for (const out of [path.join(locked, 'new'), path.join(locked, 'empty'), path.join(locked, 'b')]) {
      const run = await backupAsUser(['--data', dataDir, '--out', out]);
      expect(run.code, run.stderr).toBe(1);
      expect(run.json).toEqual({ ok: false, code: 'backup_failed', error: `cannot write the backup at ${out}: permission denied (EACCES); nothing was left there`, hint: WRITE_HINT });
      expect(run.stderr).not.toMatch(/\n\s+at /);
    }
    expect(fs.readdirSync(locked).sort()).toEqual([path.basename(leftover), 'empty']);
    expect(fs.readdirSync(path.join(locked, 'empty'))).toEqual([]);
    expect(fs.readFileSync(path.join(leftover, 'lineage.db'), 'utf8')).toBe('half a backup');

    // Written into but not listed (mode -wx): its leftovers cannot be looked for, nor the rename made durable.
    const dropBox = path.join(root, 'drop-box');
    fs.mkdirSync(dropBox, { mode: 0o333 });
    fs.chmodSync(dropBox, 0o333);
    const unlisted = await backupAsUser(['--data', dataDir, '--out', path.join(dropBox, 'b')]);
    expect(unlisted.code, unlisted.stderr).toBe(1);
    expect(unlisted.json).toEqual({
      ok: false, code: 'invalid_argument',
      error: `--out: the directory ${dropBox} that would hold ${path.join(dropBox, 'b')} cannot be listed by this user (EACCES)`,
      hint: 'pass --out a new (or empty) directory outside the data directory; nothing was written',
    });
    expect(unlisted.stderr).not.toMatch(/\n\s+at /);
    expect(fs.readdirSync(dropBox)).toEqual([]);

    expect(await readTree(dataDir, [])).toEqual(source);
    fs.chmodSync(locked, 0o755);
  }, 120_000);

  it('EROFS: a read-only mount fails in words (also beside a killed backup\'s leftover), leaves nothing, the source unchanged', async () => {
    const { root, dataDir, server } = await servedDataDir(1);
    await server.stop();
    const source = await readTree(dataDir, []);
    const ro = path.join(root, 'ro');
    fs.mkdirSync(ro);
    fs.mkdirSync(path.join(ro, 'empty'));
    const leftover = leftoverOf(path.join(ro, 'b'), deadPid());
    fs.mkdirSync(leftover);
    const outs = [path.join(ro, 'new'), path.join(ro, 'empty'), path.join(ro, 'b')];
    const result = await inMountNamespace([
      `mount --bind "${ro}" "${ro}"`,
      `mount -o remount,bind,ro "${ro}"`,
      ...outs.map((out) => `"${process.execPath}" "${BIN}" backup --data "${dataDir}" --out "${out}" || true`),
      `ls -A "${ro}" > "${root}/left"`,
    ].join('\n'), {});
    const lines = result.stdout.trim().split('\n').filter((l) => l.startsWith('{'));
    expect(lines, result.stderr).toHaveLength(outs.length);
    outs.forEach((out, i) => expect(JSON.parse(lines[i]!)).toEqual({
      ok: false, code: 'backup_failed', error: `cannot write the backup at ${out}: it is on a read-only filesystem (EROFS); nothing was left there`, hint: WRITE_HINT,
    }));
    expect(result.stderr).not.toMatch(/\n\s+at /);
    expect(fs.readFileSync(path.join(root, 'left'), 'utf8').split('\n').filter(Boolean).sort()).toEqual([path.basename(leftover), 'empty']);
    expect(fs.readdirSync(path.join(ro, 'empty'))).toEqual([]);
    expect(await readTree(dataDir, [])).toEqual(source);
  }, 120_000);
});

describe('lineage backup refuses, writing nothing', () => {
  it('a destination that is not empty, a file, inside the data directory; a data directory that is not there; the scale-out storage; no --out', async () => {
    const { root, dataDir, server } = await servedDataDir(1);
    await server.stop();
    const full = path.join(root, 'full');
    fs.mkdirSync(full);
    fs.writeFileSync(path.join(full, 'keep.txt'), 'mine');
    const aFile = path.join(root, 'a-file');
    fs.writeFileSync(aFile, 'x');
    const before = fs.readdirSync(root).sort();
    const dataBefore = fs.readdirSync(dataDir).sort();

    const notEmpty = await runCli(['backup', '--data', dataDir, '--out', full]);
    expect(notEmpty.json).toMatchObject({ ok: false, code: 'invalid_argument', error: `--out: ${full} is not empty: a backup is written only into a new or empty directory` });
    expect(fs.readdirSync(full)).toEqual(['keep.txt']);

    const isFile = await runCli(['backup', '--data', dataDir, '--out', aFile]);
    expect(isFile.json).toMatchObject({ ok: false, code: 'invalid_argument', error: `--out: ${aFile} is a file, not a directory` });

    for (const inside of [path.join(dataDir, 'backup'), dataDir, path.join(dataDir, 'blobs', 'b')]) {
      const run = await runCli(['backup', '--data', dataDir, '--out', inside]);
      expect(run.json, inside).toMatchObject({ ok: false, code: 'invalid_argument' });
      expect(run.json.error).toContain('is inside the data directory');
    }
    // Through a symbolic link to the data directory too.
    fs.symlinkSync(dataDir, path.join(root, 'link'));
    const viaLink = await runCli(['backup', '--data', dataDir, '--out', path.join(root, 'link', 'backup')]);
    expect(viaLink.json.error).toContain('is inside the data directory');
    fs.rmSync(path.join(root, 'link'));

    const nowhere = await runCli(['backup', '--data', path.join(root, 'no-such'), '--out', path.join(root, 'out1')]);
    expect(nowhere.json).toMatchObject({ ok: false, code: 'data_not_found' });

    const scaleOut = await runCli(['backup', '--database-url', 'postgres://u@localhost/db', '--blob-url', 's3://bucket', '--out', path.join(root, 'out2')]);
    expect(scaleOut.json).toMatchObject({ ok: false, code: 'invalid_argument' });
    expect(scaleOut.json.hint).toContain('pg_dump');
    const scaleOutEnv = await runCli(['backup', '--data', dataDir, '--out', path.join(root, 'out3')], { LINEAGE_DATABASE_URL: 'postgres://u@localhost/db' });
    expect(scaleOutEnv.json).toMatchObject({ ok: false, code: 'invalid_argument' });

    const noOut = await runCli(['backup', '--data', dataDir]);
    expect(noOut.json).toMatchObject({ ok: false, code: 'invalid_argument', error: 'missing required option --out' });

    expect(fs.readdirSync(root).sort()).toEqual(before);
    expect(fs.readdirSync(dataDir).sort()).toEqual(dataBefore);

    // An empty directory is a fine destination.
    const empty = path.join(root, 'empty');
    fs.mkdirSync(empty);
    const ok = await runCli(['backup', '--data', dataDir, '--out', empty]);
    expect(ok.json, ok.stderr).toMatchObject({ ok: true, entries: 2 });
  }, 180_000);
});
