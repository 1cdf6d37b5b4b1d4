/**
 * Conformance cases of the verbs the service's protocol handlers use besides the index queries
 * (conformance-cases.ts): the memory DTO, one agent's stats, entries by id, restore plans, entry
 * bytes, the parsed plan archives, the workspace downloads (.alf, .tar.gz, .zip) and deleting an agent — same answers on both backends. They run
 * after conformance-cases.ts's, on the agents it ingested.
 */
import { expect, it } from 'vitest';
import type { Readable } from 'node:stream';
import { sha256Hex } from '@/lib/core/uuid';
import { workspaceAlfAt } from '@/lib/history/queries/workspace';
import { workspaceArchive } from '@/lib/history/queries/restored-download';
import { A1, A2, asking, EMPTY, START, TENANT, type Backends } from './conformance-cases';
import { agentHistory } from './testing/scenario';

const GONE = '7c7c7c7c-1111-4a2b-8c3d-000000000009';
const UNKNOWN = '7c7c7c7c-1111-4a2b-8c3d-0000000000ff';
const SCOPES = [undefined, null, TENANT, 'nobody'] as const;

export function runLedgerVerbCases(b: Backends): void {
  const { same, value: ok } = asking(b);
  const latestOf = async (agentId: string) => (await b.embedded.storage.getAgent({ agentId }))!.latest_sequence!;

  it('memory DTO and one agent\'s stats: each agent in each tenant scope, upper-case ids, unknown agents', async () => {
    for (const agentId of [A1, A2, A2.toUpperCase(), EMPTY, UNKNOWN]) {
      for (const tenantId of SCOPES) {
        await same((s) => s.getAgentMemoryDto({ agentId, tenantId }));
        for (const now of [new Date(START), new Date(START + 3 * 86_400_000), new Date(START + 40 * 86_400_000)]) {
          await same((s) => s.getAgentWithStats({ agentId, tenantId, now }));
        }
      }
    }
    const dto = ok(await same((s) => s.getAgentMemoryDto({ agentId: A1 })))!;
    expect(dto.length).toBeGreaterThan(3);
    expect(ok(await same((s) => s.getAgentMemoryDto({ agentId: UNKNOWN })))).toBeNull();
    expect(ok(await same((s) => s.getAgentWithStats({ agentId: A1, tenantId: TENANT, now: new Date(START) })))).toBeNull();
  });

  it('restore plans at every sequence, entries by id, their bytes and the parsed archives; refusals the same', async () => {
    for (const [agentId, tenantId] of [[A1, null], [A2, TENANT]] as const) {
      const latest = await latestOf(agentId);
      for (let n = 0; n <= latest; n += 1) await same((s) => s.restorePlan({ agentId, upToSequence: n, tenantId }));
      const plan = ok(await same((s) => s.restorePlan({ agentId })));
      expect(plan.sequence).toBe(latest);
      // The parsed archives, compared by what a restore folds: manifests, records and sequences.
      await same(async (s) => {
        const read = await s.readPlanArchives({ plan });
        return { base: read.base.manifest, records: read.base.records, baseSequence: read.baseSequence, deltas: read.deltas.map((d) => [d.sequence, d.delta.manifest]) };
      });
      for (const entry of ok(await same((s) => s.listEntries({ agentId })))) {
        expect(ok(await same((s) => s.getEntry({ agentId, entryId: entry.id })))).toEqual(entry);
        await same((s) => s.getEntry({ agentId: agentId === A1 ? A2 : A1, entryId: entry.id }));
        expect(ok(await same(async (s) => sha256Hex(await s.readEntryBytes({ entry }))))).toBe(entry.sha256);
      }
      await same((s) => s.restorePlan({ agentId, upToSequence: latest + 1 }));
      await same((s) => s.restorePlan({ agentId, upToSequence: -1 }));
      await same((s) => s.restorePlan({ agentId, tenantId: 'nobody' }));
    }
    expect(await same((s) => s.restorePlan({ agentId: EMPTY }))).toMatchObject({ error: { code: 'never_synced' } });
    expect(await same((s) => s.restorePlan({ agentId: UNKNOWN }))).toMatchObject({ error: { code: 'agent_not_found' } });
    expect(await same((s) => s.restorePlan({ agentId: A1, upToSequence: 2 ** 40 }))).toMatchObject({ error: { code: 'sequence_out_of_range' } });
    expect(ok(await same((s) => s.getEntry({ agentId: A1, entryId: 'no-such-entry' })))).toBeNull();
    // A damaged blob: the same blob_corrupt naming agent and sequence.
    const [entry] = ok(await same((s) => s.listEntries({ agentId: A1, kind: 'snapshot' })));
    expect(await same((s) => s.readEntryBytes({ entry: { ...entry!, sha256: '0'.repeat(64) } }))).toMatchObject({ error: { code: 'blob_corrupt' } });
  });

  it('downloads: the .alf, .tar.gz and .zip of the workspace at every sequence are the same bytes on both backends', async () => {
    const bytesOf = async (stream: Readable | null) => {
      if (!stream) return null;
      const chunks: Buffer[] = [];
      for await (const chunk of stream) chunks.push(chunk as Buffer);
      return sha256Hex(Buffer.concat(chunks));
    };
    for (const [agentId, tenantId] of [[A1, null], [A2, TENANT]] as const) {
      const latest = await latestOf(agentId);
      for (let seq = 0; seq <= latest; seq += 1) {
        expect(ok(await same(async (s) => sha256Hex(await workspaceAlfAt({ storage: s, agentId, seq, tenantId }))))).toMatch(/^[0-9a-f]{64}$/);
        for (const format of ['tar.gz', 'zip'] as const) {
          expect(ok(await same(async (s) => bytesOf(await workspaceArchive({ storage: s, agentId, seq, format, tenantId }))))).not.toBeNull();
        }
      }
      expect(await same(async (s) => bytesOf(await workspaceArchive({ storage: s, agentId, seq: latest + 1, format: 'zip' }))))
        .toMatchObject({ error: { code: 'sequence_out_of_range' } });
      expect(ok(await same(async (s) => bytesOf(await workspaceArchive({ storage: s, agentId, seq: 0, format: 'zip', tenantId: 'nobody' }))))).toBeNull();
    }
  });

  it('deleting an agent: rows, ledger, index and blobs gone; the other agents untouched; refusals the same', async () => {
    const uploads = (await agentHistory(GONE, 7, START + 7_200_000, 4));
    const others = { embedded: await b.embedded.dump(), scaleOut: await b.scaleOut.dump() };
    await same((s) => s.registerAgent({ id: GONE, name: 'gone', sourceRuntime: 'openclaw', tenantId: TENANT, now: new Date(START) }));
    for (const u of uploads) {
      await same((s) => (u.kind === 'snapshot'
        ? s.ingestSnapshot({ agentId: GONE, bytes: u.bytes, now: u.now })
        : s.ingestDelta({ agentId: GONE, baseSequence: u.baseSequence, bytes: u.bytes, now: u.now })));
    }
    const entries = ok(await same((s) => s.listEntries({ agentId: GONE })));
    expect(entries.length).toBe(uploads.length);
    expect(await same((s) => s.deleteAgent({ agentId: GONE, tenantId: null }))).toMatchObject({ error: { code: 'agent_not_found' } });
    // Asked only if empty (a first sync's undo): an agent holding entries is refused, nothing deleted.
    expect(await same((s) => s.deleteAgent({ agentId: GONE, tenantId: TENANT, onlyIfEmpty: true })))
      .toMatchObject({ error: { code: 'agent_not_empty', message: expect.stringContaining(`holds ${uploads.length} ledger entries`) } });
    expect(ok(await same((s) => s.listEntries({ agentId: GONE })))).toEqual(entries);
    expect(ok(await same((s) => s.listDeletedAgents())).map((d) => d.id)).not.toContain(GONE);
    expect(ok(await same((s) => s.deleteAgent({ agentId: GONE.toUpperCase(), tenantId: TENANT })))).toEqual({ deleted: true, objects_removed: uploads.length });
    expect(ok(await same((s) => s.getAgent({ agentId: GONE })))).toBeNull();
    expect(ok(await same((s) => s.listEntries({ agentId: GONE })))).toEqual([]);
    expect(ok(await same((s) => s.getAgentMemoryDto({ agentId: GONE })))).toBeNull();
    for (const entry of entries) {
      expect(await same((s) => s.readEntryBytes({ entry }))).toMatchObject({ error: { code: 'blob_corrupt' } });
    }
    expect(await same((s) => s.deleteAgent({ agentId: GONE }))).toMatchObject({ error: { code: 'agent_not_found' } });
    // Every table as it was before the agent came (raw objects only it had are gone again).
    expect(await b.embedded.dump()).toEqual(others.embedded);
    expect(await b.scaleOut.dump()).toEqual(others.scaleOut);
  });
}
