/**
 * A shell started once, early, that runs the peer's commands (git) for a benchmark: a process with
 * a large heap that forks a child for every command pays for it afterwards (its pages are shared
 * copy-on-write with the child until the child execs, and every page it writes next faults once),
 * which would be charged to whatever it measures next. Commands go to the shell's stdin and it
 * answers when each is done; the time is measured around that round trip.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';

export interface PeerShell {
  run(command: string, cwd: string): Promise<{ ms: number; stdout: string }>;
  close(): void;
}

export function startPeerShell(): PeerShell {
  const child: ChildProcessWithoutNullStreams = spawn('bash', ['--noprofile', '--norc'], { stdio: ['pipe', 'pipe', 'pipe'] });
  let buffer = '';
  let waiting: ((out: { code: number; stdout: string }) => void) | null = null;
  child.stdout.on('data', (chunk: Buffer) => {
    buffer += chunk.toString('utf8');
    const marker = /\n?__PEER_DONE__ (\d+)\n$/.exec(buffer);
    if (marker && waiting) {
      const stdout = buffer.slice(0, marker.index);
      buffer = '';
      const done = waiting;
      waiting = null;
      done({ code: Number(marker[1]), stdout });
    }
  });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => { stderr += chunk.toString('utf8'); });
  return {
    async run(command, cwd) {
      stderr = '';
      const result = new Promise<{ code: number; stdout: string }>((resolve) => { waiting = resolve; });
      const t0 = performance.now();
      child.stdin.write(`(cd ${JSON.stringify(cwd)} && ${command}); echo; echo "__PEER_DONE__ $?"\n`);
      const { code, stdout } = await result;
      const ms = performance.now() - t0;
      if (code !== 0) throw new Error(`peer command failed (${code}): ${command}\n${stderr}`);
      return { ms, stdout };
    },
    close() {
      child.stdin.end();
      child.kill();
    },
  };
}
