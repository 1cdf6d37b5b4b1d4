import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { LogAppender } from './log';
import { storePaths } from './paths';
import { encodeTable, parseTable, TableView } from './table';
import { prepareState, type NextFile, type NextRow } from './write-state';

const dirs: string[] = [];
afterEach(async () => {
  vi.restoreAllMocks();
  for (const dir of dirs.splice(0)) await fs.rm(dir, { recursive: true, force: true });
});

const META = { agent_name: 'atlas', workspace: '/ws', created_at: '2026-11-01T09:00:00.000Z', key_version: 'v', layers: {}, store_raw: false };
const STAT = { ino: 1n, size: 1n, mtimeNs: 1n, ctimeNs: 1n };

/** A record-bearing file whose rows' lines are `lines` (views or buffers of their own). */
function recordFile(rel: string, lines: Uint8Array[]): NextFile {
  const rows: NextRow[] = lines.map((line, k) => ({ key: `${rel}#${k}`, early: true, partition: 'memory/2026-Q4.jsonl', id: `id-${rel}-${k}`, line }));
  return { rel, stat: STAT, digest: 'ab'.repeat(32), kind: 's', raw: Buffer.from(`raw of ${rel}\n`), rows };
}

/** The log and index a fresh state of `files` is written as. */
async function written(files: NextFile[]): Promise<{ log: Buffer; index: Buffer }> {
  const stateDir = await fs.mkdtemp(path.join(os.tmpdir(), 'lineage-write-state-'));
  dirs.push(stateDir);
  const prepared = await prepareState({ stateDir, agentId: 'agent', current: null, fresh: true, next: { context: 'flat', meta: META, files } });
  await prepared.commit(0);
  const paths = storePaths(stateDir, 'agent');
  return { log: await fs.readFile(paths.log(1)), index: await fs.readFile(paths.index) };
}

describe('the store log: lines taken from their source', () => {
  it('writes the same bytes whether a line is a slice of a large JSONL buffer or a buffer of its own, and appends the slices uncopied', async () => {
    // A snapshot's partition lines: one large buffer, a newline after each line.
    const texts = Array.from({ length: 3000 }, (_, k) => `{"id":"${k}","content":"line ${k} ${'x'.repeat(k % 50)}"}`);
    const big = Buffer.from(`${texts.join('\n')}\n`);
    expect(big.byteLength).toBeGreaterThan(64 * 1024);
    const views: Uint8Array[] = [];
    for (let at = 0, k = 0; k < texts.length; k++) {
      const len = Buffer.byteLength(texts[k]!);
      views.push(big.subarray(at, at + len));
      at += len + 1;
    }
    // Lines that must be copied, whatever sits beside them:
    const comma = Buffer.alloc(80 * 1024, 0x2c); // a large buffer, but a comma after the line, not a newline
    comma.write('{"id":"comma"}', 0);
    const atEnd = Buffer.alloc(70 * 1024, 0x20); // a large buffer's last bytes: nothing after them
    atEnd.write('{"id":"end"}', atEnd.length - 12);
    // Buffer's shared pool (8 KiB): a line, and right after it another Buffer's newline.
    const pool = new ArrayBuffer(8192);
    const pooled = Buffer.from(pool, 0, 11);
    pooled.write('{"id":"p1"}');
    Buffer.from(pool, 11, 1)[0] = 0x0a;
    const odd = [comma.subarray(0, 14), atEnd.subarray(atEnd.length - 12), pooled, Buffer.from('{"id":"p2"}')];
    const files = (sources: Uint8Array[]) => [
      recordFile('MEMORY.md', sources.slice(0, 1000)),
      // Every other line of the large buffer: runs broken up, then joined again.
      recordFile('memory/a.md', [...sources.slice(1000, 1500).filter((_, k) => k % 2 === 0), ...odd, ...sources.slice(1500, 3000)]),
      recordFile('memory/b.md', [...odd, sources[0]!]),
    ];

    const appended: Uint8Array[] = [];
    const append = LogAppender.prototype.append;
    vi.spyOn(LogAppender.prototype, 'append').mockImplementation(function (this: LogAppender, bytes: Uint8Array) {
      appended.push(bytes);
      return append.call(this, bytes);
    });
    const fromViews = await written(files(views));
    // Every line a buffer of its own: copied.
    const fromCopies = await written(files(views).map((file) => ({ ...file, rows: (file.rows as NextRow[]).map((row) => ({ ...row, line: Uint8Array.from(row.line as Uint8Array) })) })));
    expect(fromViews.log.equals(fromCopies.log)).toBe(true);
    expect(fromViews.index.equals(fromCopies.index)).toBe(true);

    // The log holds each line and a newline after it, in the rows' order (none of the bytes beside the odd ones).
    const expected = (file: NextFile) => Buffer.concat([file.raw as Uint8Array, ...(file.rows as NextRow[]).map((row) => Buffer.concat([row.line as Uint8Array, Buffer.from('\n')]))]);
    for (const file of files(views)) expect(fromViews.log.includes(expected(file))).toBe(true);
    expect(fromViews.log.includes(Buffer.from('{"id":"comma"},'))).toBe(false);

    // The large buffer's lines went into the log as its slices: MEMORY.md's 1000 lines as one.
    const slices = appended.slice(0, appended.length / 2).filter((piece) => piece.buffer === big.buffer);
    expect(slices.length).toBeGreaterThan(0);
    expect(slices.some((piece) => piece.byteOffset === 0 && piece.byteLength === views[999]!.byteOffset + views[999]!.byteLength + 1)).toBe(true);
    // The odd ones were copied: no piece is a slice of their buffers.
    for (const piece of appended) for (const other of [comma, atEnd, pooled]) expect(piece.buffer === other.buffer).toBe(false);
  });
});

describe('the store log: a table with carried rows', () => {
  it('is the old table\'s bytes for each carried run and the new rows\' encoding between them, as one table block', async () => {
    const stateDir = await fs.mkdtemp(path.join(os.tmpdir(), 'lineage-write-state-'));
    dirs.push(stateDir);
    const lines = Array.from({ length: 12 }, (_, k) => Buffer.from(`{"id":"id-memory/a.md-${k}","n":${k}}`));
    const first = recordFile('memory/a.md', lines);
    const current = await (await prepareState({ stateDir, agentId: 'agent', current: null, fresh: true, next: { context: 'flat', meta: META, files: [first] } })).commit(0);
    const paths = storePaths(stateDir, 'agent');
    const log = await fs.readFile(paths.log(1));
    const prior = current.files[0]!;
    const view = TableView.of(log.subarray(prior.table!.off, prior.table!.off + prior.table!.len), 't')!;
    expect(view).not.toBeNull();
    // Sections 3, 4 and 9 changed (new rows, new lines), one section added at the end; the others carried, in runs.
    const fresh = (k: number): NextRow => ({ key: `new#${k}`, early: false, partition: 'memory/2026-Q3.jsonl', id: `new-${k}`, line: Buffer.from(`{"id":"new-${k}"}`) });
    const rows = [0, 1, 2, fresh(3), fresh(4), 5, 6, 7, 8, fresh(9), 10, 11, fresh(12)];
    const next: NextFile = { ...first, rows, carriedFrom: view, carriedLinesBytes: prior.linesBytes };
    const index = await (await prepareState({ stateDir, agentId: 'agent', current, next: { context: 'flat', meta: META, files: [next] }, compact: 'background' })).commit(1);
    expect(index.generation).toBe(1);
    const after = await fs.readFile(paths.log(1));
    const table = index.files[0]!.table!;
    const written = after.subarray(table.off, table.off + table.len);
    const parsed = parseTable(written, 't');
    // The carried rows are the old table's rows (their lines where they were); the new rows' lines are appended.
    expect(parsed.map((r) => r.id)).toEqual(rows.map((r) => (typeof r === 'number' ? view.row(r).id : r.id)));
    rows.forEach((r, k) => {
      if (typeof r === 'number') expect(parsed[k]).toEqual(view.row(r));
      else expect(after.subarray(parsed[k]!.line.off, parsed[k]!.line.off + parsed[k]!.line.len).equals(r.line as Uint8Array)).toBe(true);
    });
    // The block is exactly the table of those rows.
    expect(written.equals(encodeTable(parsed))).toBe(true);
    expect(index.files[0]!.linesBytes).toBe(parsed.reduce((n, r) => n + r.line.len, 0));
  });
});
