import { fork, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { runCli } from '@/tests/cli/run-cli';
import { requestPacking } from './background-packer';
import { acquirePackerLock, breakStale, livePacker, packerLockFile } from './packer-lock';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

function dataDir(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'packer-lock-'));
  dirs.push(dir);
  return dir;
}

/** The pid of a process that has exited. */
function deadPid(): number {
  const child = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))']);
  return Number(child.stdout.toString());
}

it('one packer per data directory: a second start while the lock is held does nothing, and says who holds it', async () => {
  const dir = dataDir();
  const lock = acquirePackerLock(dir)!;
  expect(lock).not.toBeNull();
  expect(acquirePackerLock(dir)).toBeNull();
  expect(livePacker(dir)).toBe(process.pid);
  requestPacking(dir);
  const second = await runCli(['pack-blobs', '--data', dir]);
  expect(second.json).toMatchObject({ ok: true, ran: false, holder: process.pid, passes: 0 });
  lock.release();
  expect(fs.existsSync(packerLockFile(dir))).toBe(false);
  const now = await runCli(['pack-blobs', '--data', dir]);
  expect(now.json).toMatchObject({ ok: true, ran: true, passes: 1 });
});

it('a lock whose holder is gone is stale and broken; so is one a live pid has not refreshed for ten minutes; a fresh one of a live pid is not', () => {
  const dir = dataDir();
  const file = packerLockFile(dir);
  fs.writeFileSync(file, JSON.stringify({ pid: deadPid(), token: 'dead' }));
  expect(livePacker(dir)).toBeNull();
  const lock = acquirePackerLock(dir)!;
  expect(JSON.parse(fs.readFileSync(file, 'utf8'))).toMatchObject({ pid: process.pid });
  lock.release();
  // pid 1 lives as long as the machine: a pid reused by an unrelated process looks like it.
  fs.writeFileSync(file, JSON.stringify({ pid: 1, token: 'reused' }));
  expect(acquirePackerLock(dir)).toBeNull();
  const old = new Date(Date.now() - 11 * 60_000);
  fs.utimesSync(file, old, old);
  expect(livePacker(dir)).toBeNull();
  acquirePackerLock(dir)!.release();
  // A release never removes a lock that is not its own (taken over meanwhile).
  const mine = acquirePackerLock(dir)!;
  fs.writeFileSync(file, JSON.stringify({ pid: 1, token: 'other' }));
  mine.release();
  expect(JSON.parse(fs.readFileSync(file, 'utf8'))).toMatchObject({ token: 'other' });
});

it('a process that found the lock stale, late to break it, does not remove the lock another process has taken since', () => {
  const dir = dataDir();
  const file = packerLockFile(dir);
  fs.writeFileSync(file, JSON.stringify({ pid: deadPid(), token: 'dead' }));
  const seen = fs.readFileSync(file, 'utf8');
  const taken = acquirePackerLock(dir)!;
  expect(breakStale(file, seen)).toBe(true);
  expect(livePacker(dir)).toBe(process.pid);
  expect(acquirePackerLock(dir)).toBeNull();
  taken.release();
});

it('processes racing for a stale lock: exactly one gets it', async () => {
  for (let round = 0; round < 3; round++) {
    const dir = dataDir();
    fs.writeFileSync(packerLockFile(dir), JSON.stringify({ pid: deadPid(), token: 'dead' }));
    const children = Array.from({ length: 4 }, () => fork(path.join(__dirname, 'testing', 'lock-child.ts'), [], {
      execArgv: ['--import', 'tsx'], env: { ...process.env, LOCK_DATA: dir }, stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    }));
    await Promise.all(children.map((c) => new Promise((resolve) => c.once('message', resolve))));
    const answers = await Promise.all(children.map((c) => new Promise<unknown>((resolve) => {
      c.once('message', resolve);
      c.send('go');
    })));
    expect(answers.filter((a) => a === 'got')).toHaveLength(1);
    await Promise.all(children.map((c) => new Promise((resolve) => {
      c.once('exit', resolve);
      c.send('release');
    })));
    expect(fs.existsSync(packerLockFile(dir))).toBe(false);
  }
}, 120_000);
