/**
 * Hostile and malformed input, command by command: each is refused where the option is read, as
 * one JSON line `{ok:false, code, error, hint}` with exit 1 and one `error:` line on stderr — never
 * an internal error or a stack trace — and nothing on disk is created or changed by it.
 */
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listEntries, openLedger } from '@/lib/ledger';
import { runCli, type CliRun } from './run-cli';

const AGENT = '5a5a5a5a-3333-4a2b-8c3d-000000000001';
const OTHER_AGENT = '5a5a5a5a-3333-4a2b-8c3d-000000000002';

let tmp: string;
/** A file where a directory is expected. */
let file: string;
/** A workspace with its id, and one without (an export would mint it). */
let ws: string;
let fresh: string;
let env: Record<string, string>;
/** A data directory whose database is a directory: SQLite cannot open it. */
let unopenable: string;

beforeAll(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'lineage-bad-input-'));
  file = path.join(tmp, 'a-file');
  fs.writeFileSync(file, 'not a directory\n');
  ws = path.join(tmp, 'ws');
  fs.mkdirSync(ws);
  fs.writeFileSync(path.join(ws, 'SOUL.md'), '# Soul\n\nA test agent.\n');
  fs.writeFileSync(path.join(ws, '.alf-agent-id'), AGENT);
  fresh = path.join(tmp, 'fresh');
  fs.mkdirSync(fresh);
  fs.writeFileSync(path.join(fresh, 'SOUL.md'), '# Soul\n');
  unopenable = path.join(tmp, 'unopenable');
  fs.mkdirSync(path.join(unopenable, 'lineage.db'), { recursive: true });
  // Every default points into the sandbox: a command that ignored a bad value would write there.
  // LINEAGE_SECRET: a scale-out setting is judged by its URLs, not refused for want of the secret.
  env = { ALF_HOME: path.join(tmp, 'home'), LINEAGE_DATA: path.join(tmp, 'data'), LINEAGE_RESIDENT: '0', LINEAGE_DATABASE_URL: '', LINEAGE_BLOB_URL: '', LINEAGE_SECRET: 'ab'.repeat(32) };
});
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

/** Every path under the sandbox with its size and modification time. */
function tree(): string[] {
  const out: string[] = [];
  const walk = (dir: string) => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name);
      const stat = fs.statSync(full);
      out.push(`${path.relative(tmp, full)} ${entry.isDirectory() ? 'dir' : stat.size} ${stat.mtimeMs}`);
      if (entry.isDirectory()) walk(full);
    }
  };
  walk(tmp);
  return out.sort();
}

/**
 * A case's arguments and what it is refused with. Arguments that would start a process that stays
 * (serve, watch) carry a second mistake checked after the one under test, so that a regression is
 * refused for that one instead of serving until the test times out.
 */
type Case = [args: string[], code: string, error: string | RegExp];

/** What is wrong with a refusal, or null when it is the promised one. */
function problem(run: CliRun, code: string, error: string | RegExp): string | null {
  const said = JSON.stringify(run.json);
  if (run.code !== 1) return `exit ${String(run.code)}: ${said}`;
  if (run.json.ok !== false || run.json.code !== code) return `expected code ${code}: ${said}`;
  if (typeof run.json.error !== 'string' || !(typeof error === 'string' ? run.json.error.includes(error) : error.test(run.json.error))) return `expected error ${String(error)}: ${said}`;
  if (typeof run.json.hint !== 'string' || run.json.hint === '') return `no hint: ${said}`;
  if (run.stderr.split('error: ').length !== 2) return `expected one error: line on stderr: ${run.stderr}`;
  if (/^\s+at /m.test(run.stderr)) return `a stack trace on stderr: ${run.stderr}`;
  return null;
}

/** Runs every case (a few at a time) and lists those not refused as promised. */
async function refusals(cases: Case[], caseEnv: Record<string, string> = env): Promise<string[]> {
  const found: string[] = [];
  for (let i = 0; i < cases.length; i += 6) {
    await Promise.all(cases.slice(i, i + 6).map(async ([args, code, error]) => {
      const run = await runCli(args, caseEnv, tmp).catch((e: unknown) => e as Error);
      const wrong = run instanceof Error ? run.message : problem(run, code, error);
      if (wrong !== null) found.push(`lineage ${args.map((a) => JSON.stringify(a)).join(' ')} → ${wrong}`);
    }));
  }
  return found;
}

describe('lineage CLI: bad input is refused at the option, in words, and changes nothing on disk', () => {
  it('paths: a file where a directory goes, a directory where a file goes, a workspace that is not there', async () => {
    const under = path.join(file, 'sub');
    const before = tree();
    const cases: Case[] = [
      // A file as the data directory, or above it (ENOTDIR, an internal error; or "the data directory the data directory cannot be written").
      [['sync', '-w', ws, '--data', file], 'invalid_argument', `${file} is a file`],
      [['sync', '-w', ws, '--data', under], 'invalid_argument', `${file} is a file`],
      [['watch', '-w', path.join(tmp, 'no-ws'), '--data', under], 'invalid_argument', `${file} is a file`],
      [['watch', '-w', under, '--data', path.join(tmp, 'watch-data')], 'workspace_missing', `workspace not found or not a directory: ${under}`],
      [['keys', 'create', '--data', under], 'invalid_argument', `${file} is a file`],
      [['keys', 'create', '--data', file], 'invalid_argument', `${file} is a file`],
      [['serve', '--no-ui', '--port', '0', '--data', under], 'invalid_argument', `${file} is a file`],
      [['start', '--port', '0', '--data', under], 'invalid_argument', `${file} is a file`],
      [['pack-blobs', '--data', under], 'data_not_found', under],
      [['pack-blobs', '--data', path.join(tmp, 'no-data')], 'data_not_found', 'no-data'],
      // restore's --out and -w (EEXIST/ENOTDIR from mkdir, ENOENT from realpath).
      [['restore', '--agent', AGENT, '--out', file], 'invalid_argument', `${file} is a file`],
      [['restore', '--agent', AGENT, '--out', under], 'invalid_argument', `${file} is a file`],
      [['restore', '--agent', AGENT, '-w', file], 'invalid_argument', `${file} is a file`],
      [['restore', '-w', file], 'invalid_argument', `${file} is a file`],
      [['restore', '-w', path.join(tmp, 'no-ws')], 'agent_not_found', 'no workspace'],
      // A --out that is not empty, said before the history is fetched (here there is none to fetch).
      [['restore', '--agent', AGENT, '--out', ws, '--data', path.join(tmp, 'no-data')], 'restore_incomplete', `--out directory ${ws} is not empty`],
      // export's -o (EISDIR/EEXIST; a trailing / wrote a file of that name); `fresh` keeps no minted id.
      [['export', '-w', fresh, '-o', ws], 'invalid_argument', `${ws} is a directory`],
      [['export', '-w', fresh, '-o', path.join(file, 'x.alf')], 'invalid_argument', `${file} is a file`],
      [['export', '-w', fresh, '-o', `${path.join(tmp, 'new-dir')}/`], 'invalid_argument', 'path separator'],
      // validate: a directory ("cannot read ws"), nothing at all.
      [['validate', ws], 'invalid_argument', 'is a directory'],
      [['validate', path.join(file, 'x.alf')], 'file_not_found', 'no file at'],
      // A workspace that is not there (ENOENT from realpath, ENOTDIR from readFile, or a write into it).
      [['sync', '-w', path.join(tmp, 'no-ws'), '--agent-id', OTHER_AGENT], 'workspace_missing', 'no-ws'],
      [['state', 'show', '-w', path.join(tmp, 'no-ws')], 'workspace_missing', 'no-ws'],
      [['state', 'export', '-w', file], 'workspace_missing', file],
      [['state', 'compact', '-w', file], 'workspace_missing', file],
      // A ZeroClaw workspace with no brain.db: a sync took the agent's lock (its file made) before the
      // export refused it, with no hint; a watch started; an export of no workspace said "no brain.db".
      [['sync', '-r', 'zeroclaw', '-w', ws, '--data', path.join(tmp, 'zc-data')], 'workspace_missing', `no brain.db under ${ws}`],
      // (The watch's second mistake, a database URL it reads later, keeps a regression from watching on.)
      [['watch', '-r', 'zeroclaw', '-w', fresh, '--database-url', 'postgres://h:abc/db', '--blob-url', 's3://bucket'], 'workspace_missing', `no brain.db under ${fresh}`],
      [['export', '-r', 'zeroclaw', '-w', fresh, '-o', path.join(tmp, 'zc.alf')], 'workspace_missing', `no brain.db under ${fresh}`],
      [['export', '-r', 'zeroclaw', '-w', path.join(tmp, 'no-ws'), '-o', path.join(tmp, 'zc.alf')], 'workspace_missing', 'workspace not found or not a directory'],
      [['export', '-w', path.join(tmp, 'no-ws'), '-o', path.join(tmp, 'oc.alf')], 'workspace_missing', 'workspace not found or not a directory'],
    ];
    expect(await refusals(cases)).toEqual([]);
    // ALF_HOME naming a file: a sync uploaded, then failed writing its state (ENOTDIR, an internal error).
    const homeIsFile = `ALF_HOME: ${file} is a file, so ${path.join(file, '.alf')} cannot be a directory`;
    expect(await refusals([
      [['sync', '-w', ws, '--data', path.join(tmp, 'home-data')], 'invalid_argument', homeIsFile],
      [['watch', '-w', ws, '--database-url', 'postgres://h:abc/db', '--blob-url', 's3://bucket'], 'invalid_argument', homeIsFile],
      [['restore', '--agent', AGENT, '-w', path.join(tmp, 'home-ws'), '--data', path.join(tmp, 'home-data')], 'invalid_argument', homeIsFile],
      [['state', 'export', '--agent', AGENT], 'invalid_argument', homeIsFile],
      [['state', 'compact', '--agent', AGENT], 'invalid_argument', homeIsFile],
    ], { ...env, ALF_HOME: file })).toEqual([]);
    expect(tree()).toEqual(before);
  });

  it('values: empty ones, numbers a timer or a double cannot hold, URLs and ids that are none, conflicting options', async () => {
    const before = tree();
    const cases: Case[] = [
      // An empty value was taken for the option left out: ./data or $LINEAGE_DATA, all agents, no blob URL (an internal error).
      [['sync', '-w', ws, '--data', ''], 'invalid_argument', '--data was given an empty value'],
      [['sync', '-w', ws, '--blob-url', ''], 'invalid_argument', '--blob-url was given an empty value'],
      [['restore', '--agent', AGENT, '--out', path.join(tmp, 'out'), '--blob-url', ' '], 'invalid_argument', '--blob-url was given an empty value'],
      [['keys', 'create', '--name', ''], 'invalid_argument', '--name was given an empty value'],
      [['keys', 'list', '--blob-url', ''], 'invalid_argument', '--blob-url was given an empty value'],
      [['search', 'memory', '--agent', '  '], 'invalid_argument', '--agent was given an empty value'],
      [['serve', '--no-ui', '--host', '', '--port', 'abc'], 'invalid_argument', '--host was given an empty value'],
      [['migrate', '--from-data', ''], 'invalid_argument', '--from-data was given an empty value'],
      [['export', '-w', fresh, '-o', ''], 'invalid_argument', '--output was given an empty value'],
      [['validate', ''], 'invalid_argument', 'empty path'],
      [['keys', 'revoke', ' '], 'invalid_argument', 'empty'],
      // Past a timer's 2^31-1 ms the watch synced in a loop; past 2^53 a sequence was rounded to another.
      [['watch', '-w', path.join(tmp, 'no-ws'), '--interval', '99999999999999999999'], 'invalid_argument', '--interval must be at most 2147483'],
      [['watch', '-w', path.join(tmp, 'no-ws'), '--interval', '2147484'], 'invalid_argument', '--interval must be at most'],
      [['watch', '-w', path.join(tmp, 'no-ws'), '--quiet', '2147483648'], 'invalid_argument', '--quiet must be at most 2147483647'],
      [['restore', '--agent', AGENT, '--out', path.join(tmp, 'out'), '--at-sequence', '99999999999999999999'], 'invalid_argument', '--at-sequence must be at most'],
      [['restore', '--agent', AGENT, '--out', path.join(tmp, 'out'), '--at-sequence', '1e400'], 'invalid_argument', '--at-sequence must be a non-negative integer'],
      // A --server that is no http(s) URL failed inside fetch (an internal error), after the agent id was written.
      [['sync', '-w', ws, '--server', 'not-a-url', '--key', 'k'], 'invalid_argument', '--server must be an http(s) URL'],
      [['sync', '-w', ws, '--server', 'http://[::1', '--key', 'k', '--agent-id', OTHER_AGENT], 'invalid_argument', '--server must be an http(s) URL'],
      [['sync', '-w', ws, '--server', 'ftp://127.0.0.1:21', '--key', 'k'], 'invalid_argument', '--server must be an http(s) URL'],
      [['watch', '-w', path.join(tmp, 'no-ws'), '--server', 'not-a-url', '--key', 'k'], 'invalid_argument', '--server must be an http(s) URL'],
      [['restore', '--agent', AGENT, '--out', path.join(tmp, 'out'), '--server', 'not-a-url', '--key', 'k'], 'invalid_argument', '--server must be an http(s) URL'],
      // A port fetch refuses before connecting ("bad port") read as a server out of reach (server_unreachable, "bad port").
      [['sync', '-w', ws, '--server', 'http://127.0.0.1:6000', '--key', 'k'], 'invalid_argument', '--server http://127.0.0.1:6000: port 6000 is one that browsers and fetch clients refuse to connect to'],
      [['restore', '--agent', AGENT, '--out', path.join(tmp, 'out'), '--server', 'http://127.0.0.1:10080/v1', '--key', 'k'], 'invalid_argument', 'port 10080 is one that browsers and fetch clients refuse'],
      [['serve', '--no-ui', '--port', '0', '--public-url', 'http://lineage.lan:6667'], 'invalid_argument', '--public-url http://lineage.lan:6667: port 6667 is one that browsers and fetch clients refuse'],
      // A database URL the driver could not read was storage_unavailable, as if PostgreSQL were down.
      [['keys', 'list', '--database-url', 'postgres://lineage:hunter2@127.0.0.1:abc/db', '--blob-url', 's3://bucket'], 'invalid_argument', '--database-url has a port that is not a number from 1 to 65535 ("abc"): it must look like postgres://user:password@host:5432/database'],
      [['sync', '-w', ws, '--database-url', 'postgres://lineage@[::1/db', '--blob-url', 's3://bucket'], 'invalid_argument', '--database-url cannot be read as a URL'],
      [['restore', '--agent', AGENT, '--out', path.join(tmp, 'out'), '--database-url', 'not-a-url', '--blob-url', 's3://bucket'], 'invalid_argument', '--database-url must be a postgres:// or postgresql:// URL such as postgres://user:password@host:5432/database'],
      [['serve', '--no-ui', '--port', '0', '--database-url', 'postgres://h:99999/db', '--blob-url', 's3://bucket'], 'invalid_argument', '--database-url has a port that is not a number'],
      [['search', 'x', '--database-url', 'http://x', '--blob-url', 's3://bucket'], 'invalid_argument', '--database-url must be a postgres:// or postgresql:// URL'],
      [['doctor', '--database-url', 'postgres://lineage@127.0.0.1:5432/db', '--blob-url', 'http://x'], 'invalid_argument', '--blob-url must look like s3://bucket[/prefix], got "http://x"'],
      [['migrate', '--from-data', unopenable, '--database-url', 'postgres://h:x/db', '--blob-url', 's3://bucket'], 'invalid_argument', '--database-url has a port that is not a number'],
      // The id is checked before anything else happens: --agent-id is written only once every flag is good.
      [['sync', '-w', ws, '-r', 'nanoclaw', '--agent-id', OTHER_AGENT], 'invalid_runtime', 'nanoclaw'],
      [['restore', '--agent', 'not-a-uuid', '--out', path.join(tmp, 'out')], 'invalid_argument', '--agent must be a UUID'],
      // No hint (state), or taken for an agent not found after opening the database (search).
      [['state', 'export', '--agent', 'not-a-uuid'], 'invalid_argument', '--agent must be a UUID'],
      [['state', 'show'], 'invalid_argument', 'state show needs -w WORKSPACE or --agent ID'],
      [['search', 'memory', '--agent', 'not-a-uuid', '--data', unopenable], 'invalid_argument', '--agent must be a UUID'],
      [['restore', '--agent', AGENT, '--out', path.join(tmp, 'out'), '--replace'], 'invalid_argument', '--replace applies to a live workspace'],
      // Refusals that came without a hint.
      [['search', 'memory', '--limit', 'abc'], 'invalid_input', 'limit must be a positive whole number'],
      [['serve', '--no-ui', '--port', '99999'], 'invalid_argument', '--port must be a port number'],
      [['start', '--port', 'abc'], 'invalid_argument', '--port must be a port number'],
      // --runtime-agent names an agent of a ZeroClaw brain.db: ignored elsewhere, and a Hermes sync with it took a lock of its own.
      [['sync', '-w', ws, '--runtime-agent', 'scout', '--data', path.join(tmp, 'ra-data')], 'invalid_argument', '--runtime-agent names an agent inside a ZeroClaw brain.db; an OpenClaw workspace holds one agent'],
      [['sync', '-r', 'hermes', '-w', ws, '--runtime-agent', 'scout', '--data', path.join(tmp, 'ra-data')], 'invalid_argument', 'a Hermes home holds one agent'],
      [['watch', '-r', 'hermes', '-w', ws, '--runtime-agent', 'scout', '--database-url', 'postgres://h:abc/db', '--blob-url', 's3://bucket'], 'invalid_argument', 'a Hermes home holds one agent'],
      [['export', '-w', fresh, '--runtime-agent', 'scout', '-o', path.join(tmp, 'ra.alf')], 'invalid_argument', 'an OpenClaw workspace holds one agent'],
      [['restore', '--agent', AGENT, '--out', path.join(tmp, 'out'), '--runtime-agent', 'scout'], 'invalid_argument', 'an OpenClaw workspace holds one agent'],
      // Year 0000 was read as 1900: the demo seeded four weeks of 1899.
      [['demo', '--data', path.join(tmp, 'demo'), '--today', '0000-01-01'], 'invalid_argument', '--today must be 1970-01-01 or later'],
    ];
    expect(await refusals(cases)).toEqual([]);
    // From the environment, the variable is named; the password is not repeated.
    const fromEnv = await runCli(['keys', 'list'], { ...env, LINEAGE_DATABASE_URL: 'postgres://lineage:hunter2@127.0.0.1:99999999/db', LINEAGE_BLOB_URL: 's3://bucket' }, tmp);
    expect(problem(fromEnv, 'invalid_argument', 'LINEAGE_DATABASE_URL has a port that is not a number from 1 to 65535 ("99999999")')).toBeNull();
    expect(fromEnv.stdout + fromEnv.stderr).not.toContain('hunter2');
    expect(tree()).toEqual(before);
    expect(fs.readFileSync(path.join(ws, '.alf-agent-id'), 'utf8')).toBe(AGENT);
  });

  it('a server that is not there, or a database that cannot be opened, is said in words, not as an internal error', async () => {
    // "the data directory the data directory cannot be written", and no hint.
    expect(await refusals([[['keys', 'create', '--data', unopenable], 'read_only', /^the data directory cannot be written/]])).toEqual([]);
    // A port nothing listens on: taken from the system, then let go.
    const port = await new Promise<number>((resolve) => {
      const server = net.createServer().listen(0, '127.0.0.1', () => {
        const { port: free } = server.address() as net.AddressInfo;
        server.close(() => resolve(free));
      });
    });
    const server = `http://127.0.0.1:${port}`;
    const runs = await Promise.all([
      runCli(['sync', '-w', ws, '--server', server, '--key', 'k'], env, tmp),
      runCli(['restore', '--agent', AGENT, '--out', path.join(tmp, 'out-unreachable'), '--server', server, '--key', 'k'], env, tmp),
    ]);
    for (const run of runs) {
      expect(run.json).toMatchObject({ ok: false, code: 'server_unreachable', error: expect.stringContaining('ECONNREFUSED'), hint: expect.stringContaining('--server') });
      expect(run.stderr).not.toMatch(/^\s+at /m);
    }
    // A sync's user is told that running it again is safe (a server killed mid-upload breaks the connection the same way).
    expect(runs[0]!.json.hint).toMatch(/Then run the same sync again: this machine's state is as it was, and an upload the server kept before the connection broke is recognised at that sync, not sent twice$/);
    expect(runs[1]!.json.hint).not.toMatch(/sync again/);
    // A well-formed database URL of a server that is down stays storage_unavailable (not a usage mistake).
    const down = await runCli(['keys', 'list', '--database-url', `postgres://lineage@127.0.0.1:${port}/db`, '--blob-url', 's3://bucket'], env, tmp);
    expect(problem(down, 'storage_unavailable', 'ECONNREFUSED')).toBeNull();
    // migrate said it as an internal error, with a stack.
    const source = path.join(tmp, 'migrate-source');
    expect((await runCli(['keys', 'create', '--name', 'm', '--data', source], env, tmp)).code).toBe(0);
    const migrate = await runCli(['migrate', '--from-data', source, '--database-url', `postgres://lineage@127.0.0.1:${port}/db`, '--blob-url', 's3://bucket'], env, tmp);
    expect(problem(migrate, 'storage_unavailable', 'ECONNREFUSED')).toBeNull();
  });

  it('an agent this machine does not know, beside one it does: refused (or answered) writing nothing, not even a lock file', async () => {
    // Another agent synced: the state directory and the locks directory are there, so their being
    // there says nothing of this agent (state export and compact took its lock, creating its file).
    const known = path.join(tmp, 'known');
    fs.mkdirSync(known);
    fs.writeFileSync(path.join(known, 'SOUL.md'), '# Soul\n\nA synced agent.\n');
    expect((await runCli(['sync', '-w', known, '--data', path.join(tmp, 'known-data')], env, tmp)).json).toMatchObject({ ok: true, sequence: 0 });
    const knownId = fs.readFileSync(path.join(known, '.alf-agent-id'), 'utf8').trim();
    expect(fs.readdirSync(path.join(tmp, 'home', '.alf', 'locks'))).toContain(`${knownId}.lock`);
    // Opening the database makes its -wal and -shm, removed when it is closed: the data directory's
    // own time moves; every file in it is compared.
    const files = () => tree().filter((line) => !line.startsWith('known-data dir '));
    const before = files();
    const knownData = path.join(tmp, 'known-data');
    const live = path.join(tmp, 'restore-ws');
    expect(await refusals([
      [['state', 'export', '--agent', OTHER_AGENT], 'state_missing', `no sync state for agent ${OTHER_AGENT}`],
      // A restore into a live workspace took the agent's lock before it asked the target for the agent.
      [['restore', '--agent', OTHER_AGENT, '-w', live, '--data', knownData], 'agent_not_found', `agent ${OTHER_AGENT} not found`],
      [['restore', '--agent', OTHER_AGENT, '-w', live, '--data', path.join(tmp, 'no-data')], 'agent_not_found', 'no lineage data directory'],
      // Past the latest: the CLI's flag, not the API's up_to_sequence, and the latest sequence.
      [['restore', '--agent', knownId, '--out', path.join(tmp, 'restore-out'), '--at-sequence', '9', '--data', knownData], 'sequence_out_of_range', `--at-sequence 9 is past the latest sequence of agent ${knownId}, which is 0`],
      [['restore', '--agent', knownId, '-w', live, '--at-sequence', '9', '--data', knownData], 'sequence_out_of_range', '--at-sequence 9 is past the latest sequence'],
      // Commands that only read the database left its -wal and -shm behind when they failed (process.exit closed nothing).
      [['search', 'soul', '--agent', OTHER_AGENT, '--data', knownData], 'agent_not_found', OTHER_AGENT],
      [['keys', 'revoke', 'no-such-key', '--data', knownData], 'key_not_found', 'no API key with id no-such-key: none was issued with that id here, or it was revoked already'],
    ])).toEqual([]);
    // Where to look for the id: a server serving the protocol only (`--no-ui`) has no /api/agents, and another tenant's agent is not found.
    const unknown = await runCli(['restore', '--agent', OTHER_AGENT, '--out', path.join(tmp, 'restore-unknown'), '--data', knownData], env, tmp);
    expect(unknown.json.hint).toMatch(/^check the agent id \(the dashboard lists them; so does a server's `GET \/v1\/agents` with the key, even one serving the protocol only: the agents that key sees, another tenant's being not found\)/);
    const compact = await runCli(['state', 'compact', '--agent', OTHER_AGENT], env, tmp);
    expect(compact.json).toMatchObject({ ok: true, agent_id: OTHER_AGENT, compacted: false, sequence: null });
    expect(files()).toEqual(before);
  });

  it('a memory too large to sync (one `## ` section past the 16 MiB a reader takes for a line): refused by the sync, naming MEMORY.md and its lines, writing no entry and no sync state', async () => {
    const huge = path.join(tmp, 'huge');
    fs.mkdirSync(huge);
    fs.writeFileSync(path.join(huge, 'MEMORY.md'), `# Memory\n\n## Owner\nDana owns billing.\n## Huge\n${'x'.repeat(16 * 1024 * 1024 + 1)}\n`);
    const home = path.join(tmp, 'huge-home');
    const data = path.join(tmp, 'huge-data');
    expect(await refusals([[['sync', '-w', huge, '--data', data], 'sync_upload_failed',
      /^a memory is too large to sync: its record is \d+ bytes of JSON, more than the 16777216 bytes \(16 MiB\) an archive reader takes for one record \(the record's id [0-9a-f-]{36}, file "MEMORY\.md" lines 5-6\)$/]], { ...env, ALF_HOME: home })).toEqual([]);
    const agentId = fs.readFileSync(path.join(huge, '.alf-agent-id'), 'utf8').trim();
    expect(fs.readdirSync(huge).sort()).toEqual(['.alf-agent-id', 'MEMORY.md']);
    expect(fs.existsSync(path.join(home, '.alf', 'state'))).toBe(false);
    expect(fs.existsSync(data) ? listEntries({ ledger: openLedger(data), agentId }) : []).toEqual([]);
  }, 60_000);

  it('serving: a port in use, a port below 1024 without the privilege, a host not of this machine, a bind that needs a key no data directory holds — refused before the data directory is made', async () => {
    const held = net.createServer();
    const port = await new Promise<number>((resolve) => held.listen(0, '127.0.0.1', () => resolve((held.address() as net.AddressInfo).port)));
    try {
      const before = tree();
      const data = path.join(tmp, 'serve-data');
      expect(await refusals([
        [['serve', '--no-ui', '--port', String(port), '--data', data], 'port_in_use', `port ${port} is already in use (127.0.0.1:${port})`],
        [['serve', '--no-ui', '--port', String(port), '--host', 'localhost', '--data', data], 'port_in_use', `port ${port} is already in use`],
        // TEST-NET-1 (RFC 5737): no machine's own address.
        [['serve', '--no-ui', '--port', '0', '--host', '192.0.2.1', '--data', data], 'invalid_argument', '--host 192.0.2.1 is not an address of this machine'],
        [['serve', '--no-ui', '--port', '0', '--host', '0.0.0.0', '--data', data], 'no_admin_key', `no data directory at ${data}`],
        [['serve', '--no-ui', '--port', '0', '--auth', 'required', '--data', data], 'no_admin_key', 'sign-in is required'],
      ])).toEqual([]);
      // start checks the port before it opens the storage: here a database nothing listens on, which a
      // regression would report instead (an embedded start would seed the demo and build the dashboard first).
      const start = await runCli(['start', '--port', String(port), '--database-url', 'postgres://lineage@127.0.0.1:9/none', '--blob-url', 's3://no-bucket'],
        env, tmp);
      expect(problem(start, 'port_in_use', `port ${port} is already in use`)).toBeNull();
      // A port below 1024 for a user without the privilege (the tests run as root: a user namespace of its own).
      for (const args of [['serve', '--no-ui', '--port', '80', '--data', data], ['start', '--port', '443', '--data', data]]) {
        const run = await runCli(args, env, tmp, { unprivileged: true });
        expect(problem(run, 'port_not_allowed', `not allowed to listen on port ${args[args.indexOf('--port') + 1]} (127.0.0.1:`)).toBeNull();
        expect(run.json.hint).toMatch(/ports below 1024 need privileges: choose --port 1024 or above/);
      }
      // A port browsers and fetch refuse to connect to: it listened, and then no dashboard opened and no sync reached it.
      for (const args of [['serve', '--no-ui', '--port', '6000', '--data', data], ['start', '--port', '5060', '--data', data]]) {
        const run = await runCli(args, env, tmp);
        expect(problem(run, 'port_not_allowed', `not serving on port ${args[args.indexOf('--port') + 1]}: port ${args[args.indexOf('--port') + 1]} is one that browsers and fetch clients refuse to connect to`)).toBeNull();
        expect(run.json.hint).toMatch(/choose another port with --port/);
      }
      expect(tree()).toEqual(before);
    } finally {
      await new Promise((resolve) => held.close(resolve));
    }
  });

  it('a usage mistake in a subcommand names its help, and `help WORD` says the word is no command', async () => {
    const hints: [string[], string][] = [
      [['keys', 'revoke'], 'run `lineage keys revoke --help` for usage'],
      [['keys', 'list', 'extra'], 'run `lineage keys list --help` for usage'],
      [['state', 'show', '--bogus'], 'run `lineage state show --help` for usage'],
      [['keys', 'bogus'], 'run `lineage keys --help` for usage'],
    ];
    for (const [args, hint] of hints) expect((await runCli(args, env, tmp)).json).toMatchObject({ ok: false, code: 'invalid_argument', hint });
    const help = await runCli(['help', 'bogus'], env, tmp);
    expect(help.code).toBe(1);
    expect(help.json).toMatchObject({ ok: false, code: 'invalid_argument', error: "unknown command 'bogus'" });
  });
});
