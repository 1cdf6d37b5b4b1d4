/**
 * The ledger's size on disk for the bench history, beside the same history packed by git
 * (`git gc --aggressive` on a copy of the peer repository): the blob files at rest as the store
 * wrote them (packed against the previous blob, lib/ledger/blob-packing.ts: the structural form of
 * their Deflated members, lib/ledger/zip-structure.ts), the same blobs
 * stored whole (the layout before packing: their bytes as read back), and the blobs as the
 * archive writer wrote them before every entry was Deflated (members under 16 KiB Stored).
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { readZip, resolveLimits } from '@/lib/core/archive/zip-read';
import { writeZip } from '@/lib/core/archive/zip-write';
import { FsBlobStore } from '@/lib/ledger/blob-store';
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

/** The blobs as read back (their whole bytes), and re-zipped in the layout the writer used before every entry was Deflated. */
async function wholeAndOldLayoutBytes(store: FsBlobStore): Promise<{ blobs: number; whole: number; oldLayout: number }> {
  let total = 0;
  let whole = 0;
  const keys = await store.list();
  for (const key of keys) {
    const bytes = await store.get(key);
    whole += bytes.byteLength;
    const { files } = await readZip(bytes, resolveLimits());
    const entries = [...files].map(([name, data]) => ({ name, data, store: data.byteLength < OLD_STORE_BELOW }));
    total += (await writeZip(entries)).byteLength;
  }
  return { blobs: keys.length, whole, oldLayout: total };
}

export async function measureLedgerSize(args: { history: BuiltHistory; log: (line: string) => void }): Promise<BenchResult[]> {
  const root = path.join(args.history.dataDir, 'blobs');
  // The history was synced through the local target, which packs a group once the next begins:
  // the last, open group is packed now, as packing at put would have left it (the same files).
  await new FsBlobStore(root, { pack: 'deferred' }).packStored();
  const files = filesUnder(root);
  const after = sizeOf(files);
  const packedFiles = files.filter((f) => f.endsWith('.packed')).length;
  const structuralFiles = files.filter((f) => f.endsWith('.packed') && fs.readFileSync(f).subarray(0, 4).toString('latin1') === 'ALP2').length;
  const { blobs, whole, oldLayout: before } = await wholeAndOldLayoutBytes(new FsBlobStore(root));
  const copy = `${args.history.gitRepo}-gc`;
  fs.rmSync(copy, { recursive: true, force: true });
  const cloned = spawnSync('git', ['clone', '-q', '--no-local', '--bare', args.history.gitRepo, copy], { encoding: 'utf8' });
  if (cloned.status !== 0) throw new Error(`git clone failed: ${cloned.stderr}`);
  git(copy, ['gc', '-q', '--aggressive', '--prune=now']);
  const pack = sizeOf(filesUnder(path.join(copy, 'objects')));
  fs.rmSync(copy, { recursive: true, force: true });
  const mib = (n: number) => `${(n / 1048576).toFixed(1)} MiB`;
  args.log(`  ledger size: ${blobs} blobs ${mib(after)} at rest (${packedFiles} packed; stored whole ${mib(whole)}; members under 16 KiB Stored ${mib(before)}), git gc --aggressive ${mib(pack)}`);
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
      note: `${blobs} ledger blobs (every entry Deflated), ${packedFiles} of them packed at rest against the blob before `
        + `(${structuralFiles} from the structural form of their members, ${packedFiles - structuralFiles} from their bytes); `
        + `the same blobs stored whole (before packing): ${whole} bytes (${(whole / pack).toFixed(2)}× the pack); `
        + `with members under 16 KiB Stored (before issue 19): ${before} bytes (${(before / pack).toFixed(2)}× the pack)`,
    },
  ];
}
