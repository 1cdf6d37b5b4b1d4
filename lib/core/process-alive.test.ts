import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { processAlive, processGone, signalZero } from './process-alive';

/** The pid of a process that has run and been reaped: no process has it now (until the kernel hands it out again). */
function endedPid(): number {
  const child = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' });
  return Number(child.stdout);
}

describe('signalZero / processAlive / processGone', () => {
  it('this process exists and is not gone', () => {
    expect(signalZero(process.pid)).toBe('exists');
    expect(processAlive(process.pid)).toBe(true);
    expect(processGone(process.pid)).toBe(false);
  });

  it('a reaped process is gone and not alive', () => {
    const pid = endedPid();
    expect(pid).toBeGreaterThan(0);
    expect(signalZero(pid)).toBe('gone');
    expect(processAlive(pid)).toBe(false);
    expect(processGone(pid)).toBe(true);
  });

  it('a pid process.kill does not take is neither alive nor known gone', () => {
    for (const pid of [1.5, Number.NaN]) {
      expect(signalZero(pid)).toBe('unknown');
      expect(processAlive(pid)).toBe(false);
      expect(processGone(pid)).toBe(false);
    }
  });

  it('a pid that is no positive integer is never alive (0 and -1 name process groups)', () => {
    for (const pid of [0, -1, 2 ** 53]) expect(processAlive(pid)).toBe(false);
  });
});
