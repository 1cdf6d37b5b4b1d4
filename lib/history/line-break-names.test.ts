/**
 * A workspace file whose name holds a line break (`\n`, `\r`, U+2028, U+2029: legal in a POSIX
 * file name) is carried as `raw/openclaw/<name>` like any other. The history index must take it at
 * its workspace path, as `lineage restore` writes it: the dashboard's tree, file view and downloads
 * once showed it as `raw/openclaw/memory/a\nb.md` (a regex `.` stops at a line break).
 */
import fs from 'node:fs';
import { Readable } from 'node:stream';
import { gunzipSync } from 'node:zlib';
import tar from 'tar-stream';
import { afterEach, describe, expect, it } from 'vitest';
import { closeDatabase } from '@/db/client';
import { readSnapshot } from '@/lib/core/archive';
import { openLedger } from '@/lib/ledger';
import { embeddedStorage } from '@/lib/storage/embedded';
import { openclawSyncSandbox } from '@/lib/sync/testing/workspace';
import { workspacePath } from './index-rows';
import { getWorkspaceFile, getWorkspaceTree, streamWorkspaceArchive, workspaceAlfAt } from './queries';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const fn of cleanups.splice(0)) await fn();
});

const NAMES = ['memory/new\nline.md', 'memory/car\rriage.md', 'memory/line\u2028sep.md', 'memory/para\u2029sep.md'];

async function untar(bytes: Buffer): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  const extract = tar.extract();
  const done = new Promise<void>((resolve, reject) => {
    extract.on('entry', (header, stream, next) => {
      bytesOf(stream).then((b) => { out.set(header.name, b.toString('utf8')); next(); }, reject);
    });
    extract.on('finish', resolve);
    extract.on('error', reject);
  });
  Readable.from([gunzipSync(bytes)]).pipe(extract);
  await done;
  return out;
}

async function bytesOf(stream: AsyncIterable<unknown>): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(Buffer.from(chunk as Uint8Array));
  return Buffer.concat(chunks);
}

describe('a workspace file whose name holds a line break', () => {
  it('workspacePath strips raw/<runtime>/ whatever the name holds', () => {
    for (const name of NAMES) expect(workspacePath(`raw/openclaw/${name}`)).toBe(name);
  });

  it('is in the tree, the file view and the downloads at its workspace path, at a snapshot and after a delta', async () => {
    const { sb, sync } = await openclawSyncSandbox(cleanups);
    for (const name of NAMES) await sb.write(name, `## Note\nfirst of ${JSON.stringify(name)}\n`);
    const first = await sync();
    for (const name of NAMES) await sb.write(name, `## Note\nsecond of ${JSON.stringify(name)}\n`);
    const second = await sync();
    expect([first.sequence, second.sequence]).toEqual([0, 1]);

    const ledger = openLedger(sb.dataDir);
    try {
      const agentId = fs.readFileSync(`${sb.workspace}/.alf-agent-id`, 'utf8').trim();
      for (const [seq, word] of [[0, 'first'], [1, 'second']] as const) {
        const tree = getWorkspaceTree({ db: ledger.db, agentId, seq })!;
        expect(tree.files.map((f) => f.path).sort()).toEqual(['MEMORY.md', ...NAMES].sort());
        for (const name of NAMES) {
          expect(Buffer.from(getWorkspaceFile({ db: ledger.db, agentId, seq, path: name })!).toString('utf8')).toBe(`## Note\n${word} of ${JSON.stringify(name)}\n`);
        }
        const files = await untar(await bytesOf(streamWorkspaceArchive({ db: ledger.db, agentId, seq, format: 'tar.gz' })!));
        expect([...files.keys()].sort()).toEqual(['MEMORY.md', ...NAMES].sort());
        const alf = await readSnapshot(await workspaceAlfAt({ storage: embeddedStorage(ledger), agentId, seq }));
        expect([...alf.raw.keys()].sort()).toEqual(['MEMORY.md', ...NAMES].map((n) => `raw/openclaw/${n}`).sort());
      }
    } finally {
      closeDatabase(ledger.db);
    }
  });
});
