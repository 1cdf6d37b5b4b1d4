/**
 * The ledger's size on disk for the bench history, beside the same history packed by git
 * (`git gc --aggressive` on a copy of the peer repository): every blob as written now (every entry
 * Deflated, as the reference writes archives) and as the writer wrote them before (members under
 * 16 KiB Stored, larger ones Deflated), that layout rebuilt from the same blobs' entries.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { readZip, resolveLimits } from '@/lib/core/archive/zip-read';
import { writeZip } from '@/lib/core/archive/zip-write';
import type { BuiltHistory } from '../history/build';
import { git } from '../history/git-history';
import type { BenchResult } from '../lib/result';

const OLD_STORE_BELOW = 16 * 1024;

function filesUnder(dir: string): string[] {
  const out: string[] = [];
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) out.push(...filesUnder(full));
    else out.push(full);
  }
  return out;
}

const sizeOf = (files: string[]) => files.reduce((n, f) => n + fs.statSync(f).size, 0);

/** The blobs re-zipped in the layout the writer used before every entry was Deflated. */
async function oldLayoutBytes(blobs: string[]): Promise<number> {
  let total = 0;
  for (const file of blobs) {
    const { files } = await readZip(new Uint8Array(fs.readFileSync(file)), resolveLimits());
    const entries = [...files].map(([name, data]) => ({ name, data, store: data.byteLength < OLD_STORE_BELOW }));
    total += (await writeZip(entries)).byteLength;
  }
  return total;
}

export async function measureLedgerSize(args: { history: BuiltHistory; log: (line: string) => void }): Promise<BenchResult[]> {
  const blobs = filesUnder(path.join(args.history.dataDir, 'blobs'));
  const after = sizeOf(blobs);
  const before = await oldLayoutBytes(blobs);
  const copy = `${args.history.gitRepo}-gc`;
  fs.rmSync(copy, { recursive: true, force: true });
  const cloned = spawnSync('git', ['clone', '-q', '--no-local', '--bare', args.history.gitRepo, copy], { encoding: 'utf8' });
  if (cloned.status !== 0) throw new Error(`git clone failed: ${cloned.stderr}`);
  git(copy, ['gc', '-q', '--aggressive', '--prune=now']);
  const pack = sizeOf(filesUnder(path.join(copy, 'objects')));
  fs.rmSync(copy, { recursive: true, force: true });
  const mib = (n: number) => `${(n / 1048576).toFixed(1)} MiB`;
  args.log(`  ledger size: ${blobs.length} blobs ${mib(after)} (before: ${mib(before)}), git gc --aggressive ${mib(pack)}`);
  const ratio = after / pack;
  return [
    {
      name: 'ledger_size_vs_git_pack',
      ours: after,
      peer: pack,
      ratio,
      unit: 'bytes',
      goal: 'ledger bytes ÷ git pack bytes (git gc --aggressive); goal ≤ 3',
      meets_goal: ratio <= 3,
      note: `${blobs.length} ledger blobs, every entry Deflated; the same blobs in the previous layout (members under 16 KiB Stored): ${before} bytes (${(before / pack).toFixed(2)}× the pack)`,
    },
  ];
}
