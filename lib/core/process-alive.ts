/**
 * What signal 0 says of process `pid` on this machine (nothing is sent): `exists` (EPERM too: it
 * exists, under another user), `gone` (ESRCH: no process has that pid), or `unknown` (any other
 * refusal, an argument `process.kill` does not take). Not for pids ≤ 0: they name process groups.
 */
export function signalZero(pid: number): 'exists' | 'gone' | 'unknown' {
  try {
    process.kill(pid, 0);
    return 'exists';
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    return code === 'EPERM' ? 'exists' : code === 'ESRCH' ? 'gone' : 'unknown';
  }
}

/** Whether a process with this id exists (on this machine); a pid that is no positive integer never does. */
export function processAlive(pid: number): boolean {
  return Number.isSafeInteger(pid) && pid > 0 && signalZero(pid) === 'exists';
}

/** Whether it is KNOWN that no process has this id (ESRCH): what may be cleaned up after it only then. */
export function processGone(pid: number): boolean {
  return signalZero(pid) === 'gone';
}
