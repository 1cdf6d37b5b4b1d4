import { expect, it } from 'vitest';
import { writeSnapshot } from '@/lib/core/archive';
import { tempLedger } from '@/lib/history/testing/temp-ledger';
import { registerAgent } from '@/lib/ledger';
import { ingestSnapshot } from '@/lib/storage/embedded-ingest';
import { untarGz } from '@/e2e/untar';
import { unzip } from '@/e2e/unzip';
import { streamWorkspaceArchive } from './workspace';

const AGENT = '6c6c6c6c-4444-4a2b-8c3d-000000000001';

async function collect(stream: NodeJS.ReadableStream): Promise<{ bytes: Buffer; turnsBeforeEnd: number; turnsAtFirst: number }> {
  let turns = 0;
  const ticker = setInterval(() => turns++, 0);
  let turnsAtFirst = -1;
  const chunks: Buffer[] = [];
  for await (const c of stream) {
    if (turnsAtFirst < 0) turnsAtFirst = turns;
    chunks.push(c as Buffer);
  }
  clearInterval(ticker);
  return { bytes: Buffer.concat(chunks), turnsBeforeEnd: turns, turnsAtFirst };
}

it('streams a 3,000-file workspace as .tar.gz and .zip page by page, yielding to the event loop, byte-exact', async () => {
  const t = tempLedger();
  try {
    const raw = new Map<string, Uint8Array>();
    for (let i = 0; i < 3000; i++) raw.set(`raw/openclaw/notes/${i % 30}/n-${i}.md`, Buffer.from(`# ${i}\n${'word '.repeat(i % 50)}\n`));
    const bytes = await writeSnapshot({ manifest: { alf_version: '1.0.0', created_at: '2026-05-01T00:00:00Z', agent: { id: AGENT, name: 'w', source_runtime: 'openclaw' }, layers: {} }, records: [], layers: {}, raw, extra: new Map() });
    registerAgent({ ledger: t.ledger, id: AGENT, name: 'w', sourceRuntime: 'openclaw', tenantId: null, now: new Date() });
    await ingestSnapshot({ ledger: t.ledger, agentId: AGENT, bytes, now: new Date('2026-05-01T00:00:00Z') });
    const want = new Map([...raw].map(([p, b]) => [p.replace('raw/openclaw/', ''), Buffer.from(b)]));
    for (const format of ['tar.gz', 'zip'] as const) {
      const got = await collect(streamWorkspaceArchive({ db: t.ledger.db, agentId: AGENT, seq: 0, format })!);
      expect(got.turnsBeforeEnd, format).toBeGreaterThan(got.turnsAtFirst + 1);
      const files = format === 'zip' ? await unzip(got.bytes) : await untarGz(got.bytes);
      expect(files.size, format).toBe(3000);
      expect(files, format).toEqual(want);
    }
  } finally {
    t.cleanup();
  }
});
