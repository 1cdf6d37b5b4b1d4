import { describe, expect, it } from 'vitest';
import { validateArchive } from '../validate';
import { prng } from '../prng';
import { ArchiveError, readDelta, readSnapshot, writeSnapshot, type ArchiveLimits } from './index';
import { craftZip, type CraftedEntry } from './testing/craft-zip';
import { AGENT_ID, makeDelta, makeRecord, makeSnapshot } from './testing/fixtures';

const MANIFEST = JSON.stringify({
  alf_version: '1.0.0',
  created_at: '2026-01-01T00:00:00Z',
  agent: { id: AGENT_ID, name: 'n', source_runtime: 'openclaw' },
  layers: {},
});
const line = (n: number, extra: object = {}) => JSON.stringify({ ...makeRecord(n), ...extra });

/** A snapshot made of the given entries plus a valid manifest.json. */
/** Deterministic bytes that do not compress (so the member's compressed size stays large). */
const noise = (size: number) => {
  const rand = prng(size);
  return Buffer.from(Array.from({ length: size }, () => Math.floor(rand() * 256)));
};
const snap = (...entries: CraftedEntry[]) => craftZip([...entries, { name: 'manifest.json', data: MANIFEST }]);
const deltaManifest = (changes: object = {}) => JSON.stringify({ ...makeDelta().manifest, changes });

interface HostileCase {
  name: string;
  bytes: () => Promise<Uint8Array> | Uint8Array;
  code: ArchiveError['code'];
  message: RegExp;
  limits?: Partial<ArchiveLimits>;
  delta?: boolean;
}

const CASES: HostileCase[] = [
  { name: 'not a zip', bytes: () => Buffer.from('hello, not a zip'), code: 'not_a_zip', message: /not a ZIP/ },
  { name: 'empty input', bytes: () => new Uint8Array(), code: 'not_a_zip', message: /not a ZIP/ },
  {
    name: 'truncated archive',
    bytes: async () => (await writeSnapshot(makeSnapshot([makeRecord(1)]))).subarray(0, 200),
    code: 'not_a_zip',
    message: /not a ZIP/,
  },
  {
    name: 'central directory pointing past the data',
    bytes: async () => {
      const good = Buffer.from(await writeSnapshot(makeSnapshot([makeRecord(1)])));
      return Buffer.concat([good.subarray(0, 40), good.subarray(good.length - 400)]);
    },
    code: 'not_a_zip',
    message: /ZIP/,
  },
  { name: 'parent segment', bytes: () => snap({ name: '../evil.sh', data: 'x' }), code: 'unsafe_path', message: /"\.\." segment.*evil/ },
  { name: 'nested zip-slip', bytes: () => snap({ name: 'raw/openclaw/../../x', data: 'x' }), code: 'unsafe_path', message: /"\.\."/ },
  { name: 'absolute path', bytes: () => snap({ name: '/etc/passwd', data: 'x' }), code: 'unsafe_path', message: /absolute.*etc\/passwd/ },
  { name: 'backslash name', bytes: () => snap({ name: 'raw\\openclaw\\x.md', data: 'x' }), code: 'unsafe_path', message: /backslash/ },
  { name: 'drive prefix', bytes: () => snap({ name: 'C:/windows/x', data: 'x' }), code: 'unsafe_path', message: /drive prefix/ },
  { name: 'NUL in name', bytes: () => snap({ name: 'raw/openclaw/a\0.md', data: 'x' }), code: 'unsafe_path', message: /NUL/ },
  { name: 'empty name', bytes: () => snap({ name: '', data: 'x' }), code: 'unsafe_path', message: /empty entry name/ },
  { name: 'double slash', bytes: () => snap({ name: 'raw//openclaw/x', data: 'x' }), code: 'unsafe_path', message: /empty path segment/ },
  { name: 'trailing slash on a file', bytes: () => snap({ name: 'raw/openclaw/x/', data: 'data' }), code: 'unsafe_path', message: /ends with "\/".*file data/ },
  {
    name: 'directory entry hiding data behind a zero size',
    bytes: () => snap({ name: 'raw/openclaw/dir/', data: 'hidden', declaredSize: 0 }),
    code: 'unsafe_path',
    message: /raw\/openclaw\/dir\/.*carries file data/,
  },
  {
    name: 'duplicate entry names',
    bytes: () => craftZip([{ name: 'manifest.json', data: MANIFEST }, { name: 'manifest.json', data: '{}' }]),
    code: 'duplicate_entry',
    message: /duplicate entry name.*manifest\.json/,
  },
  {
    name: 'too many entries',
    bytes: () => snap({ name: 'a', data: '1' }, { name: 'b', data: '2' }, { name: 'c', data: '3' }),
    limits: { maxEntries: 3 },
    code: 'too_many_entries',
    message: /4 entries.*limit of 3/,
  },
  {
    name: 'entry over the per-entry cap',
    bytes: () => snap({ name: 'artifacts/big.bin', data: Buffer.alloc(5000) }),
    limits: { maxEntryUncompressedBytes: 4096 },
    code: 'too_large',
    message: /artifacts\/big\.bin.*per-entry limit/,
  },
  {
    name: 'zip bomb lying about its size',
    bytes: () => snap({ name: 'artifacts/bomb.bin', data: Buffer.alloc(20 * 1024 * 1024), declaredSize: 100 }),
    code: 'too_large',
    message: /bomb\.bin.*declared size/,
  },
  {
    // Members of a megabyte or more (compressed) are inflated on the thread pool: same checks.
    name: 'large incompressible member lying about its size',
    bytes: () => snap({ name: 'artifacts/noise.bin', data: noise(1536 * 1024), declaredSize: 1024 * 1024 }),
    code: 'too_large',
    message: /noise\.bin.*declared size/,
  },
  {
    name: 'large incompressible member failing its CRC-32',
    bytes: () => snap({ name: 'artifacts/noise.bin', data: noise(1536 * 1024), declaredCrc: 1234 }),
    code: 'not_a_zip',
    message: /noise\.bin.*CRC/,
  },
  {
    name: 'entry declaring a size over the cap (refused before inflating)',
    bytes: () => snap({ name: 'artifacts/bomb.bin', data: Buffer.alloc(1024 * 1024), declaredSize: 0xffff_fffe }),
    limits: { maxEntryUncompressedBytes: 1024 },
    code: 'too_large',
    message: /bomb\.bin/,
  },
  {
    name: 'total size over the cap',
    bytes: () => snap({ name: 'artifacts/a', data: Buffer.alloc(3000) }, { name: 'artifacts/b', data: Buffer.alloc(3000) }),
    limits: { maxTotalUncompressedBytes: 5000 },
    code: 'too_large',
    message: /total limit of 5000/,
  },
  {
    name: 'line longer than the cap',
    bytes: () => snap({ name: 'memory/2026-Q1.jsonl', data: `${line(1)}\n${line(2, { pad: 'x'.repeat(5000) })}\n` }),
    limits: { maxLineBytes: 4096 },
    code: 'line_too_long',
    message: /memory\/2026-Q1\.jsonl line 2/,
  },
  { name: 'missing manifest', bytes: () => craftZip([{ name: 'identity.json', data: '{}' }]), code: 'missing_manifest', message: /no manifest\.json/ },
  { name: 'manifest not JSON', bytes: () => craftZip([{ name: 'manifest.json', data: '{nope' }]), code: 'bad_manifest', message: /manifest\.json: not valid JSON/ },
  { name: 'manifest not an object', bytes: () => craftZip([{ name: 'manifest.json', data: '[1]' }]), code: 'bad_manifest', message: /expected a JSON object/ },
  {
    name: 'manifest without agent.id',
    bytes: () => craftZip([{ name: 'manifest.json', data: JSON.stringify({ alf_version: '1.0.0', agent: {} }) }]),
    code: 'bad_manifest',
    message: /agent\.id/,
  },
  {
    name: 'record line not JSON',
    bytes: () => snap({ name: 'memory/2026-Q1.jsonl', data: `${line(1)}\n{"id": oops}\n` }),
    code: 'bad_record',
    message: /memory\/2026-Q1\.jsonl line 2: not valid JSON/,
  },
  {
    name: 'record without content',
    bytes: () => snap({ name: 'memory/2026-Q1.jsonl', data: `${line(1, { content: undefined })}\n` }),
    code: 'bad_record',
    message: /line 1: record\.content/,
  },
  {
    name: 'record not valid UTF-8',
    bytes: () => snap({ name: 'memory/2026-Q1.jsonl', data: Buffer.from([0x7b, 0xff, 0xfe, 0x7d, 0x0a]) }),
    code: 'bad_record',
    message: /UTF-8/,
  },
  {
    name: 'duplicate record ids across partitions',
    bytes: () => snap({ name: 'memory/2026-Q1.jsonl', data: `${line(1)}\n` }, { name: 'memory/2026-Q2.jsonl', data: `${line(1)}\n` }),
    code: 'duplicate_record_id',
    message: /2026-Q1\.jsonl line 1 and memory\/2026-Q2\.jsonl line 1/,
  },
  { name: 'CRC mismatch', bytes: () => snap({ name: 'artifacts/a', data: 'abc', declaredCrc: 1234 }), code: 'not_a_zip', message: /artifacts\/a.*CRC/ },
  { name: 'encrypted entry', bytes: () => snap({ name: 'artifacts/a', data: 'abc', encrypted: true }), code: 'not_a_zip', message: /encrypted/ },
  {
    name: 'partition listed but absent',
    bytes: () => craftZip([{ name: 'manifest.json', data: JSON.stringify({ ...JSON.parse(MANIFEST), layers: { memory: { partitions: [{ file: 'memory/2026-Q1.jsonl' }] } } }) }]),
    code: 'bad_manifest',
    message: /memory\/2026-Q1\.jsonl.*not in the archive/,
  },
  { name: 'layer document not JSON', bytes: () => snap({ name: 'identity.json', data: 'nope' }), code: 'bad_manifest', message: /identity\.json: not valid JSON/ },
  {
    name: 'delta with the same id twice',
    delta: true,
    bytes: () => craftZip([
      { name: 'memory/delta.jsonl', data: `${line(1, { operation: 'create' })}\n${line(1, { operation: 'delete' })}\n` },
      { name: 'delta-manifest.json', data: deltaManifest() },
    ]),
    code: 'duplicate_record_id',
    message: /delta\.jsonl line 2/,
  },
  {
    name: 'delta deleting a path outside raw/',
    delta: true,
    bytes: () => craftZip([{ name: 'delta-manifest.json', data: deltaManifest({ raw: { deleted: ['raw/openclaw/../../../etc/passwd'] } }) }]),
    code: 'unsafe_path',
    message: /deleted raw path.*"\.\."/,
  },
  {
    name: 'delta changing and deleting the same raw path',
    delta: true,
    bytes: () => craftZip([
      { name: 'raw/openclaw/MEMORY.md', data: 'x' },
      { name: 'delta-manifest.json', data: deltaManifest({ raw: { changed: ['raw/openclaw/MEMORY.md'], deleted: ['raw/openclaw/MEMORY.md'] } }) },
    ]),
    code: 'bad_manifest',
    message: /raw\/openclaw\/MEMORY\.md.*both changed and deleted/,
  },
  {
    name: 'delta without base_sequence',
    delta: true,
    bytes: () => craftZip([{ name: 'delta-manifest.json', data: JSON.stringify({ agent: { id: AGENT_ID }, sync: { base_sequence: -1 } }) }]),
    code: 'bad_manifest',
    message: /base_sequence/,
  },
];

describe('hostile archives', () => {
  it('has a corpus of at least 20 cases', () => {
    expect(CASES.length).toBeGreaterThanOrEqual(20);
  });

  for (const hostile of CASES) {
    it(`refuses: ${hostile.name}`, async () => {
      const bytes = await hostile.bytes();
      const read = hostile.delta ? readDelta : readSnapshot;
      const error = await read(bytes, hostile.limits).then(
        () => null,
        (err: unknown) => err,
      );
      expect(error).toBeInstanceOf(ArchiveError);
      expect(error).toMatchObject({ code: hostile.code });
      expect((error as Error).message).toMatch(hostile.message);

      const report = await validateArchive(bytes, hostile.limits);
      if (hostile.code === 'duplicate_record_id') {
        // The reference validator has no such rule: a warning there, while every reader (and so ingest) refuses it.
        expect(report.warnings.map((w) => w.message)).toContainEqual(expect.stringMatching(/duplicate record id/));
        return;
      }
      expect(report.valid).toBe(false);
      expect(report.errors.length).toBeGreaterThan(0);
    });
  }
});
