import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { seedBrainDb } from '@/lib/adapters/zeroclaw/test-support';
import { makeSandbox } from '@/lib/sync/testing/workspace';
import { inMountNamespace } from './run-cli';

const ROOT = path.resolve(__dirname, '../..');
const BIN = path.join(ROOT, 'bin', 'lineage.mjs');

describe('a full disk under the live workspace during a restore', () => {
  it('refuses naming the lack of space, every file of the workspace as it was', async () => {
    const sb = await makeSandbox('lineage-full-disk-restore-');
    try {
      // Sequence 0 holds a large incompressible file; sequence 1 does not, and changed the rest.
      await sb.write('MEMORY.md', '# M\n\n## Gateway\nThe gateway is 10.20.0.5.\n');
      await sb.write('memory/a.md', 'first a\n');
      await sb.write('memory/big.md', randomBytes(96 * 1024).toString('base64'));
      const lineage = `"${process.execPath}" "${BIN}"`;
      const sync = `${lineage} sync -r openclaw -w "${sb.workspace}" --data "${sb.dataDir}"`;
      const live = path.join(sb.root, 'live');
      await fs.mkdir(live);
      const result = await inMountNamespace(
        [
          `${sync} >/dev/null`,
          `rm "${sb.workspace}/memory/big.md"`,
          `printf '# M\\n\\n## Gateway\\nThe gateway moved to 10.20.0.9.\\n' > "${sb.workspace}/MEMORY.md"`,
          `printf 'second a\\n' > "${sb.workspace}/memory/a.md"`,
          `${sync} >/dev/null`,
          // The live workspace, at sequence 1, on a small disk with some room left, not enough for big.md.
          `mount -t tmpfs -o size=256k tmpfs "${live}"`,
          `cp -a "${sb.workspace}/." "${live}/"`,
          `dd if=/dev/zero of="${live}/filler" bs=4k count=40 2>/dev/null`,
          `(cd "${live}" && find . -type f | sort | xargs sha256sum) > "${sb.root}/before"`,
          `${lineage} restore -w "${live}" --at-sequence 0 --replace --data "${sb.dataDir}" || true`,
          `(cd "${live}" && find . -type f | sort | xargs sha256sum) > "${sb.root}/after"`,
        ].join('\n'),
        { ALF_HOME: sb.alfHome },
      );
      const lines = result.stdout.trim().split('\n').filter((l) => l.startsWith('{'));
      expect(lines, result.stderr).toHaveLength(1);
      const restore = JSON.parse(lines[0]!) as Record<string, unknown>;
      expect(restore).toMatchObject({ ok: false, code: 'restore_incomplete' });
      expect(restore.error).toBe(`cannot restore into ${live}: its disk is full (ENOSPC); nothing was changed`);
      expect(restore.hint).toBe('free some space on that disk, then restore again');
      const before = await fs.readFile(path.join(sb.root, 'before'), 'utf8');
      expect(before).toContain('./MEMORY.md');
      expect(await fs.readFile(path.join(sb.root, 'after'), 'utf8')).toBe(before);
    } finally {
      await sb.cleanup();
    }
  }, 120_000);

  it('ZeroClaw: the raw files are staged before brain.db is written, so brain.db is as it was too', async () => {
    const sb = await makeSandbox('lineage-full-disk-restore-zc-');
    try {
      const A = 'aaaaaaaa-0000-4000-8000-00000000000a';
      const dbPath = await seedBrainDb({
        workspace: sb.workspace,
        agents: [{ id: A, alias: 'scout', created_at: '2026-05-01T00:00:00Z' }],
        rows: [{ id: '10000000-0000-4000-8000-000000000001', key: 'gateway', content: 'The gateway is 10.20.0.5', agent_id: A, created_at: '2026-05-01T10:00:00Z', updated_at: '2026-05-01T10:00:00Z' }],
      });
      await sb.write('memory/big.md', randomBytes(96 * 1024).toString('base64'));
      const lineage = `"${process.execPath}" "${BIN}"`;
      const sync = `${lineage} sync -r zeroclaw -w "${sb.workspace}" --data "${sb.dataDir}"`;
      const update = `require('better-sqlite3')(process.argv[1]).prepare("UPDATE memories SET content = 'The gateway moved to 10.20.0.9'").run()`;
      const live = path.join(sb.root, 'live');
      await fs.mkdir(live);
      const result = await inMountNamespace(
        [
          `${sync} >/dev/null`,
          `rm "${sb.workspace}/memory/big.md"`,
          `"${process.execPath}" -e "${update.replace(/"/g, '\\"')}" "${dbPath}"`,
          `${sync} >/dev/null`,
          `mount -t tmpfs -o size=384k tmpfs "${live}"`,
          `cp -a "${sb.workspace}/." "${live}/"`,
          `dd if=/dev/zero of="${live}/filler" bs=4k count=40 2>/dev/null`,
          `(cd "${live}" && find . -type f | sort | xargs sha256sum) > "${sb.root}/before"`,
          `${lineage} restore -r zeroclaw -w "${live}" --at-sequence 0 --replace --data "${sb.dataDir}" || true`,
          `(cd "${live}" && find . -type f | sort | xargs sha256sum) > "${sb.root}/after"`,
        ].join('\n'),
        { ALF_HOME: sb.alfHome },
      );
      const lines = result.stdout.trim().split('\n').filter((l) => l.startsWith('{'));
      expect(lines, result.stderr).toHaveLength(1);
      expect(JSON.parse(lines[0]!)).toMatchObject({ ok: false, code: 'restore_incomplete', error: `cannot restore into ${live}: its disk is full (ENOSPC); nothing was changed` });
      const before = await fs.readFile(path.join(sb.root, 'before'), 'utf8');
      expect(before).toContain('./memory/brain.db');
      expect(await fs.readFile(path.join(sb.root, 'after'), 'utf8')).toBe(before);
    } finally {
      await sb.cleanup();
    }
  }, 120_000);
});
