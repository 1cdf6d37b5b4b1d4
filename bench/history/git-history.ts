/**
 * The same history as a git repository, one commit per sync, built with `git fast-import`
 * (author/committer date = the sync's time) — the peer the history queries are compared with.
 */
import { spawn, spawnSync, type ChildProcessWithoutNullStreams } from 'node:child_process';
import fs from 'node:fs';
import type { TurnChange } from './generate';

const IDENT = 'Atlas Bench <atlas@bench.invalid>';

export interface GitHistoryWriter {
  commit(change: TurnChange): Promise<void>;
  /** Ends the import and returns the commit id of every turn, in order. */
  finish(): Promise<string[]>;
}

export function git(repo: string, args: string[], input?: string): string {
  const out = spawnSync('git', ['-C', repo, ...args], { encoding: 'utf8', input, maxBuffer: 1 << 28 });
  if (out.status !== 0) throw new Error(`git ${args.join(' ')} failed: ${out.stderr}`);
  return out.stdout;
}

/** Starts `git fast-import` into a fresh repository at `repo`. */
export function gitHistoryWriter(repo: string): GitHistoryWriter {
  fs.mkdirSync(repo, { recursive: true });
  git(repo, ['init', '-q', '-b', 'main']);
  const child: ChildProcessWithoutNullStreams = spawn('git', ['-C', repo, 'fast-import', '--quiet', '--done'], { stdio: 'pipe' });
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const exited = new Promise<number>((resolve) => child.on('close', (code) => resolve(code ?? 1)));
  const write = (chunk: string): Promise<void> =>
    child.stdin.write(chunk) ? Promise.resolve() : new Promise((resolve) => child.stdin.once('drain', () => resolve()));
  return {
    async commit(change) {
      const when = `${Math.floor(change.time.getTime() / 1000)} +0000`;
      const message = `sync turn ${change.turn}\n`;
      const parts = [`commit refs/heads/main\nauthor ${IDENT} ${when}\ncommitter ${IDENT} ${when}\n`,
        `data ${Buffer.byteLength(message)}\n${message}`];
      for (const [path, text] of change.writes) parts.push(`M 100644 inline ${path}\ndata ${Buffer.byteLength(text)}\n${text}\n`);
      for (const path of change.deletes) parts.push(`D ${path}\n`);
      await write(`${parts.join('')}\n`);
    },
    async finish() {
      await write('done\n');
      child.stdin.end();
      const code = await exited;
      if (code !== 0) throw new Error(`git fast-import failed (${code}): ${stderr}`);
      git(repo, ['checkout', '-q', 'main']);
      return git(repo, ['rev-list', '--reverse', 'main']).trim().split('\n');
    },
  };
}
