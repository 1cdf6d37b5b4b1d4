/**
 * Which `lineage sync` a watch runs (requestKey against the key of its own flags), which sockets a
 * `lineage sync` asks (bin/resident-client.cjs), and the protocol between them over a real Unix
 * socket. The watch process itself is tested in tests/cli/watch.test.ts.
 */
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { askResident, residentRequest, trustedSockets } from '@/bin/resident-client.cjs';
import { listenResident, requestKey, syncIdentity, syncKey, type CommandOutput } from './resident';

let tmp: string;
beforeEach(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'lineage-resident-'));
});
afterEach(() => fs.rmSync(tmp, { recursive: true, force: true }));

const STAMP = '603-2874993-1796516163594';
const ENV = { HOME: '/home/u', ALF_HOME: '/home/u', PATH: '/usr/bin', LINEAGE_DATA: undefined };
const watchKey = syncKey({ runtime: 'openclaw', workspace: '/work/ws', data: '/work/data' }, '/elsewhere', ENV);
const watchIdentity = syncIdentity({ runtime: 'openclaw', workspace: '/work/ws', data: '/work/data' }, '/elsewhere');
const keyOf = (argv: string[], cwd = '/work', env: Record<string, string | undefined> = ENV) => {
  const asked = requestKey({ v: 1, argv, cwd, env });
  return 'key' in asked ? asked.key : `declined: ${asked.decline}`;
};

describe('requestKey: the sync a watch runs', () => {
  it('is the same sync however its paths and flags are written', () => {
    expect(keyOf(['-w', 'ws', '--data', 'data'])).toBe(watchKey);
    expect(keyOf(['--workspace=/work/ws', '--data', '/work/data', '-r', 'openclaw'], '/')).toBe(watchKey);
    expect(keyOf(['-w', '../ws', '--data', '../data'], '/work/sub')).toBe(watchKey);
    // The data directory from LINEAGE_DATA, or ./data, resolved against the request's directory.
    expect(keyOf(['-w', 'ws'], '/work')).toBe(watchKey);
    const fromEnv = syncKey({ runtime: 'openclaw', workspace: '/work/ws' }, '/x', { ...ENV, LINEAGE_DATA: '/work/data' });
    expect(keyOf(['-w', '/work/ws', '--data', '/work/data'], '/', { ...ENV, LINEAGE_DATA: '/work/data' })).toBe(fromEnv);
    // Settings about the process, not the sync, do not count; others do.
    expect(keyOf(['-w', 'ws'], '/work', { ...ENV, LINEAGE_CRASH_AT: 'uploaded', LINEAGE_CLI_CODE_CACHE: '0', PATH: '/bin' })).toBe(watchKey);
  });

  it('is another sync for another workspace, runtime, target or setting', () => {
    const others = [
      keyOf(['-w', 'ws2', '--data', 'data']),
      keyOf(['-w', 'ws', '--data', 'data2']),
      keyOf(['-w', 'ws'], '/work', { ...ENV, LINEAGE_DATA: '/work/other' }),
      keyOf(['-w', 'ws', '--data', 'data', '-r', 'hermes']),
      keyOf(['-w', 'ws', '--data', 'data', '--runtime-agent', 'scout']),
      keyOf(['-w', 'ws', '--server', 'http://127.0.0.1:3000', '--key', 'k']),
      keyOf(['-w', 'ws', '--data', 'data'], '/work', { ...ENV, ALF_HOME: '/other' }),
      keyOf(['-w', 'ws', '--data', 'data'], '/work', { ...ENV, LINEAGE_SYNC_STATE: 'alf' }),
      keyOf(['-w', 'ws', '--data', 'data'], '/work', { ...ENV, ALF_API_KEY: 'k' }),
    ];
    for (const other of others) expect(other).not.toBe(watchKey);
  });

  it('is the same sync and the same sync state for a workspace named through a link', () => {
    const real = path.join(tmp, 'agent');
    fs.mkdirSync(real);
    fs.symlinkSync(real, path.join(tmp, 'current'));
    fs.symlinkSync(tmp, path.join(tmp, 'up'));
    const flags = (workspace: string) => ({ runtime: 'openclaw', workspace, data: '/work/data' });
    const watched = syncIdentity(flags(real), '/');
    for (const [workspace, cwd] of [['current', tmp], [path.join(tmp, 'up', 'current'), '/'], ['up/agent', tmp]] as const) {
      expect(syncIdentity(flags(workspace), cwd)).toBe(watched);
      expect(syncKey(flags(workspace), cwd, ENV)).toBe(syncKey(flags(real), '/', ENV));
    }
    // A workspace not there (yet) is named as resolved; another directory is another state.
    expect(JSON.parse(syncIdentity(flags('gone'), tmp)).workspace).toBe(path.join(tmp, 'gone'));
    fs.mkdirSync(path.join(tmp, 'other'));
    expect(syncIdentity(flags('other'), tmp)).not.toBe(watched);
  });

  it('declines what only a sync of its own can do, and arguments sync would refuse', () => {
    for (const argv of [
      ['-w', 'ws', '--data', 'data', '--rebase'],
      ['-w', 'ws', '--data', 'data', '--force-first-sync'],
      ['-w', 'ws', '--data', 'data', '--change-runtime'],
      ['-w', 'ws', '--data', 'data', '--agent-id', '6f1c2b1e-7d7e-4d59-9a43-2c1c7b0c1f00'],
      ['-w', 'ws', '--data', 'data', '--no-such-flag'],
      ['-w', 'ws', '--data', 'data', 'extra'],
      ['-w', 'ws', '-r', 'nope'],
      // An empty --data is refused by `lineage sync` (main.ts), not served as ./data.
      ['-w', 'ws', '--data', ''],
      ['--data', 'data'],
      ['--help'],
    ]) {
      expect(keyOf(argv)).toMatch(/^declined: /);
    }
  });
});

describe('the sockets a lineage sync asks', () => {
  it('only in a directory that is the user\'s own and nobody else\'s', () => {
    const dir = path.join(tmp, 'run');
    expect(trustedSockets(dir)).toEqual([]);
    fs.mkdirSync(dir, { mode: 0o700 });
    fs.writeFileSync(path.join(dir, 'watch-12.sock'), '');
    fs.writeFileSync(path.join(dir, 'watch-3.sock'), '');
    fs.writeFileSync(path.join(dir, 'other.sock'), '');
    expect(trustedSockets(dir)).toEqual([path.join(dir, 'watch-12.sock'), path.join(dir, 'watch-3.sock')]);
    fs.chmodSync(dir, 0o770);
    expect(trustedSockets(dir)).toEqual([]);
    fs.chmodSync(dir, 0o705);
    expect(trustedSockets(dir)).toEqual([]);
    fs.chmodSync(dir, 0o700);
    const link = path.join(tmp, 'link');
    fs.symlinkSync(dir, link);
    expect(trustedSockets(link)).toEqual([]);
  });
});

describe('the protocol over a Unix socket', () => {
  const capture = () => {
    const io = { out: '', err: '', stdout: { write: (t: string) => (io.out += t) }, stderr: { write: (t: string) => (io.err += t) } };
    return io;
  };

  it('runs the matching sync and relays what it wrote; declines the others; answers a probe without running', async () => {
    const ran: string[] = [];
    const run = async (stderr: (text: string) => void): Promise<CommandOutput> => {
      ran.push('sync');
      stderr('delta at sequence 4\n');
      return { stdout: '{"ok":true,"sequence":4}\n', code: 0 };
    };
    const served: CommandOutput[] = [];
    let staleCalls = 0;
    const server = await listenResident({ runDir: path.join(tmp, 'run'), key: watchKey, identity: watchIdentity, target: '/work/data', stamp: STAMP, run, served: (o) => served.push(o), stale: () => staleCalls++ });
    if (!('socket' in server)) throw new Error(server.unserved);
    try {
      expect((fs.statSync(path.join(tmp, 'run')).mode & 0o777)).toBe(0o700);
      expect(trustedSockets(path.join(tmp, 'run'))).toEqual([server.socket]);
      const io = capture();
      const answer = await askResident(server.socket, residentRequest(['-w', 'ws', '--data', 'data'], { cwd: '/work', env: ENV, stamp: STAMP }), io);
      expect(answer).toEqual({ code: 0 });
      expect(io.out).toBe('{"ok":true,"sequence":4}\n');
      expect(io.err).toBe('delta at sequence 4\n');
      expect(served).toEqual([{ stdout: '{"ok":true,"sequence":4}\n', code: 0 }]);

      const other = capture();
      expect(await askResident(server.socket, residentRequest(['-w', 'ws', '--data', 'data2'], { cwd: '/work', env: ENV }), other)).toEqual({ declined: 'another workspace, target or settings' });
      expect(await askResident(server.socket, residentRequest(['-w', 'ws', '--rebase'], { cwd: '/work', env: ENV }), other)).toMatchObject({ declined: expect.stringContaining('--rebase') });
      expect(other).toMatchObject({ out: '', err: '' });
      // The same sync run by other sources (the package changed since the watch started): declined, and said.
      expect(await askResident(server.socket, residentRequest(['-w', 'ws', '--data', 'data'], { cwd: '/work', env: ENV, stamp: 'other' }), other)).toMatchObject({ declined: expect.stringContaining('restart the watch') });
      expect(await askResident(server.socket, residentRequest(['-w', 'ws', '--data', 'data'], { cwd: '/work', env: ENV }), other)).toMatchObject({ declined: expect.stringContaining('restart the watch') });
      expect(staleCalls).toBe(2);
      // A probe (another watch starting) is accepted and not run: the asker sees the watch there.
      expect(await askResident(server.socket, residentRequest(['-w', 'ws', '--data', 'data'], { cwd: '/work', env: ENV, probe: true, stamp: STAMP }), other)).toEqual({ lost: process.pid });
      // A probe of another watch of the same workspace to another target, key or settings is told which watch runs, to what.
      const watching = { pid: process.pid, target: '/work/data' };
      for (const argv of [['-w', 'ws', '--data', 'data2'], ['-w', 'ws', '--server', 'http://127.0.0.1:1', '--key', 'k']]) {
        expect(await askResident(server.socket, residentRequest(argv, { cwd: '/work', env: ENV, probe: true, stamp: STAMP }), other)).toMatchObject({ watching });
      }
      expect(await askResident(server.socket, residentRequest(['-w', 'ws', '--data', 'data'], { cwd: '/work', env: { ...ENV, ALF_API_KEY: 'k2' }, probe: true, stamp: STAMP }), other)).toMatchObject({ watching });
      // Not a sync (a probe of another workspace or runtime agent) and not a probe: declined, no watch named.
      expect(await askResident(server.socket, residentRequest(['-w', 'ws2', '--data', 'data2'], { cwd: '/work', env: ENV, probe: true, stamp: STAMP }), other)).toEqual({ declined: 'another workspace, target or settings' });
      expect(await askResident(server.socket, residentRequest(['-w', 'ws', '--data', 'data2'], { cwd: '/work', env: ENV, stamp: STAMP }), other)).toEqual({ declined: 'another workspace, target or settings' });
      expect(ran).toEqual(['sync']);
    } finally {
      await server.close();
    }
    expect(fs.existsSync(server.socket)).toBe(false);
  });

  it('serves nothing from a directory that is not the user\'s alone, or a path too long for a socket', async () => {
    const run = async () => ({ stdout: '', code: 0 });
    const real = path.join(tmp, 'real');
    fs.mkdirSync(real, { mode: 0o700 });
    fs.symlinkSync(real, path.join(tmp, 'link'));
    expect(await listenResident({ runDir: path.join(tmp, 'link'), key: watchKey, identity: watchIdentity, target: '/work/data', stamp: STAMP, run })).toMatchObject({ unserved: expect.stringContaining("not this user's own directory") });
    expect(fs.readdirSync(real)).toEqual([]);
    expect(await listenResident({ runDir: path.join(tmp, 'x'.repeat(120)), key: watchKey, identity: watchIdentity, target: '/work/data', stamp: STAMP, run })).toMatchObject({ unserved: expect.stringContaining('too long') });
    // A directory of its own opened to others is closed again before it serves.
    const open = path.join(tmp, 'open');
    fs.mkdirSync(open, { mode: 0o755 });
    fs.chmodSync(open, 0o755);
    const server = await listenResident({ runDir: open, key: watchKey, identity: watchIdentity, target: '/work/data', stamp: STAMP, run });
    if (!('socket' in server)) throw new Error(server.unserved);
    expect(fs.statSync(open).mode & 0o777).toBe(0o700);
    await server.close();
  });

  it('closes a connection that asks nothing, so that a watch stopping is not held by it', async () => {
    const server = await listenResident({ runDir: path.join(tmp, 'run'), key: watchKey, identity: watchIdentity, target: '/work/data', stamp: STAMP, run: async () => ({ stdout: '', code: 0 }), requestMs: 200 });
    if (!('socket' in server)) throw new Error(server.unserved);
    const silent = net.createConnection(server.socket);
    const closed = new Promise<void>((resolve) => silent.on('close', () => resolve()));
    silent.on('error', () => {});
    await new Promise<void>((resolve) => silent.on('connect', () => resolve()));
    await server.close();
    await closed;
  });

  it('declines what is not a request, and a sync asks the next socket', async () => {
    const server = await listenResident({ runDir: path.join(tmp, 'run'), key: watchKey, identity: watchIdentity, target: '/work/data', stamp: STAMP, run: async () => ({ stdout: '', code: 0 }) });
    if (!('socket' in server)) throw new Error(server.unserved);
    try {
      for (const line of ['not json', '{"v":2,"argv":[],"cwd":"/","env":{}}', '{"v":1,"argv":[1],"cwd":"/","env":{}}', 'null']) {
        const answer = await new Promise<string>((resolve) => {
          const conn = net.createConnection(server.socket, () => conn.write(`${line}\n`));
          let got = '';
          conn.on('data', (d) => (got += d.toString()));
          conn.on('close', () => resolve(got));
        });
        expect(JSON.parse(answer)).toEqual({ t: 'decline', why: 'not a request' });
      }
      // Something that is not a watch on a socket: not answered as one.
      const stranger = net.createServer((c) => c.end('hello\n'));
      const strangerPath = path.join(tmp, 'stranger.sock');
      await new Promise<void>((resolve) => stranger.listen(strangerPath, resolve));
      expect(await askResident(strangerPath, residentRequest(['-w', 'ws'], { cwd: '/work', env: ENV }), capture())).toEqual({ declined: 'not a watch' });
      stranger.close();
      // A socket nobody listens on.
      fs.writeFileSync(path.join(tmp, 'dead.sock'), '');
      expect(await askResident(path.join(tmp, 'dead.sock'), residentRequest(['-w', 'ws'], { cwd: '/work', env: ENV }), capture())).toMatchObject({ declined: expect.any(String) });
    } finally {
      await server.close();
    }
  });
});
