import fs from 'node:fs/promises';
import path from 'node:path';
import Database from 'better-sqlite3';
import { runAdapterConformance } from '../conformance';
import { insert, seedStateDb, tempDir, writeFiles } from './test-support';

const ENTRIES = ['Always run tests first.', 'The gateway is 10.20.0.5.', 'Dana prefers short answers.'];
const curated = (entries: string[]) => ({ 'memories/MEMORY.md': entries.join('\n§\n') + '\n' });

// Curated entries are content-addressed (their id is their text), so Hermes' in-place edit is the
// open session that gains a message: same session id, new transcript.
runAdapterConformance({
  runtime: 'hermes',
  async create() {
    const workspace = await tempDir('conf-hermes');
    await seedStateDb(workspace, [{ id: 'open-1', source: 'cli', title: 'Ongoing', started_at: 1780000000 }], [
      { session_id: 'open-1', role: 'user', content: 'Hello', timestamp: 1780000001 },
    ]);
    await writeFiles(workspace, { ...curated(ENTRIES), 'SOUL.md': '# Desk\n', 'memories/USER.md': 'Dana likes tea.\n' });
    for (const [rel, mtime] of [['SOUL.md', '2026-05-02T08:00:00.125Z'], ['memories/USER.md', '2026-04-20T16:20:00Z']] as const) {
      await fs.utimes(path.join(workspace, rel), new Date(mtime), new Date(mtime));
    }
    return { workspace };
  },
  reorder: ({ workspace }) => writeFiles(workspace, curated([ENTRIES[2]!, ENTRIES[0]!, ENTRIES[1]!])),
  async editInPlace({ workspace }) {
    const db = new Database(path.join(workspace, 'state.db'));
    insert(db, 'messages', { session_id: 'open-1', role: 'assistant', content: 'The gateway moved to 10.20.0.9', timestamp: 1780000100 });
    db.close();
    return '10.20.0.9';
  },
  async removeItem({ workspace }) {
    await writeFiles(workspace, curated([ENTRIES[0]!, ENTRIES[1]!]));
    return 'short answers';
  },
  cleanup: ({ workspace }) => fs.rm(workspace, { recursive: true, force: true }),
});
