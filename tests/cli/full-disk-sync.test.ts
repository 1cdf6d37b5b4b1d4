import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { makeSandbox } from '@/lib/sync/testing/workspace';
import { inMountNamespace } from './run-cli';

const ROOT = path.resolve(__dirname, '../..');
const BIN = path.join(ROOT, 'bin', 'lineage.mjs');

describe('a full disk under ALF_HOME during a first sync', () => {
  it('fails naming the state directory, and the next sync (space freed) adopts its own snapshot: nothing stuck', async () => {
    const sb = await makeSandbox('lineage-full-disk-');
    try {
      await sb.write('MEMORY.md', '# M\n\n## Gateway\nThe gateway is 10.20.0.5.\n');
      // Incompressible, so the base cannot fit in the 16 KiB disk.
      await sb.write('memory/blob.bin', randomBytes(64 * 1024));
      await fs.mkdir(sb.alfHome, { recursive: true });
      const sync = `"${process.execPath}" "${BIN}" sync -r openclaw -w "${sb.workspace}" --data "${sb.dataDir}"`;
      const result = await inMountNamespace(
        [
          `mount -t tmpfs -o size=16k tmpfs "${sb.alfHome}"`,
          `${sync} || true`,
          `mount -o remount,size=4m "${sb.alfHome}"`,
          `${sync} || true`,
          `echo x > "${sb.workspace}/memory/note.md"`,
          `${sync} || true`,
        ].join('\n'),
        { ALF_HOME: sb.alfHome },
      );
      const lines = result.stdout.trim().split('\n').map((line) => JSON.parse(line) as Record<string, unknown>);
      expect(lines, result.stderr).toHaveLength(3);
      const [full, adopted, next] = lines;
      expect(full).toMatchObject({ ok: false, code: 'state_write_failed' });
      expect(full!.error).toMatch(/accepted at sequence 0, but this machine's sync state could not be written to .*alf-home\/\.alf\/state: .*ENOSPC/);
      expect(full!.hint).toMatch(/free space .* run `lineage sync` again/);
      expect(adopted).toMatchObject({ ok: true, sequence: 0, no_changes: true, recovered: true });
      expect(next).toMatchObject({ ok: true, sequence: 1, delta: true, recovered: false, raw: { changed: 1, deleted: 0 } });
    } finally {
      await sb.cleanup();
    }
  }, 120_000);

});

describe('a full disk under ALF_HOME during a delta sync', () => {
  it('fails naming the state directory, and the next sync (space freed) adopts the delta', async () => {
    const sb = await makeSandbox('lineage-full-disk-delta-');
    try {
      await sb.write('MEMORY.md', '# M\n\n## Gateway\nThe gateway is 10.20.0.5.\n');
      await fs.mkdir(sb.alfHome, { recursive: true });
      const sync = `"${process.execPath}" "${BIN}" sync -r openclaw -w "${sb.workspace}" --data "${sb.dataDir}"`;
      const result = await inMountNamespace(
        [
          `mount -t tmpfs -o size=4m tmpfs "${sb.alfHome}"`,
          `${sync} || true`,
          // The disk filled up, then a file changed (incompressible: its bytes go to the store's log).
          `dd if=/dev/zero of="${sb.alfHome}/filler" bs=4k 2>/dev/null || true`,
          `mkdir -p "${sb.workspace}/memory" && head -c 65536 /dev/urandom > "${sb.workspace}/memory/blob.bin"`,
          `${sync} || true`,
          `rm "${sb.alfHome}/filler"`,
          `${sync} || true`,
          `${sync} || true`,
        ].join('\n'),
        { ALF_HOME: sb.alfHome },
      );
      const lines = result.stdout.trim().split('\n').map((line) => JSON.parse(line) as Record<string, unknown>);
      expect(lines, `${result.stderr}\ncode ${result.code}`).toHaveLength(4);
      const [first, full, adopted, idle] = lines;
      expect(first).toMatchObject({ ok: true, sequence: 0 });
      expect(full).toMatchObject({ ok: false, code: 'state_write_failed' });
      expect(full!.error).toMatch(/accepted at sequence 1, but this machine's sync state could not be written to .*alf-home\/\.alf\/state: .*ENOSPC/);
      expect(adopted).toMatchObject({ ok: true, sequence: 1, no_changes: true, recovered: true });
      expect(idle).toMatchObject({ ok: true, sequence: 1, no_changes: true, recovered: false });
    } finally {
      await sb.cleanup();
    }
  }, 120_000);
});
