/**
 * vitest global setup: every test run gets its own temporary directory as TMPDIR (so `os.tmpdir()`
 * in the tests, and in the CLI processes they spawn, points into it), removed when the run ends —
 * tests create hundreds of scratch workspaces and data directories, and a run must not leave them
 * behind in the machine's /tmp. Set LINEAGE_KEEP_TEST_TMP=1 to keep it for inspection.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export default function setup(): () => void {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'lineage-vitest-'));
  const before = process.env.TMPDIR;
  process.env.TMPDIR = root;
  return () => {
    if (before === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = before;
    if (process.env.LINEAGE_KEEP_TEST_TMP === '1') {
      process.stderr.write(`test scratch kept in ${root}\n`);
      return;
    }
    fs.rmSync(root, { recursive: true, force: true });
  };
}
