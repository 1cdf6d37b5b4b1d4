/**
 * `agentOfSnapshot` (doctor's re-registration of an agent whose registration a lost WAL took) reads
 * only the snapshot's manifest.json. Its answers are those of the whole-snapshot read it replaced
 * (`readSnapshot`, kept here as the reference) on well-formed, odd and hostile manifests, and its
 * refusals are the same words; a snapshot damaged past its manifest, which the whole read refused,
 * is refused before the agent is registered by the blob's key (its sha256), so nothing changes.
 */
import { describe, expect, it } from 'vitest';
import { readSnapshot } from '@/lib/core/archive';
import { isJsonObject } from '@/lib/core/json';
import { readZip, resolveLimits } from '@/lib/core/archive/zip-read';
import { jsonDocument, utf8, writeZip } from '@/lib/core/archive/zip-write';
import { sha256Hex } from '@/lib/core/uuid';
import { tempLedger } from '@/lib/history/testing/temp-ledger';
import { historyIndexer } from '@/lib/storage/embedded-ingest';
import { deltaBytes, snapshotBytes } from '@/tests/server/archives';
import { agentNameProblem, agentRuntimeProblem } from './agent-name';
import { agentOfSnapshot, findUnledgeredBlobs, recoverUnledgered } from './consistency';
import { getAgent } from './agents';
import { blobKey } from './ingest-shared';

const AGENT = '7b0f3c2e-2222-4a2b-8c3d-0000000000a5';

/** What agentOfSnapshot answered when it parsed the whole snapshot (before it read the manifest only). */
async function wholeRead(agentId: string, bytes: Uint8Array): Promise<{ name: string; sourceRuntime: string | null }> {
  const { manifest } = await readSnapshot(bytes);
  const agent = isJsonObject(manifest.agent) ? manifest.agent : {};
  const name = typeof agent.name === 'string' && agentNameProblem(agent.name) === null ? agent.name : agentId;
  const runtime = typeof agent.source_runtime === 'string' && agentRuntimeProblem(agent.source_runtime) === null ? agent.source_runtime : null;
  return { name, sourceRuntime: runtime };
}

/** The snapshot the real writer makes, with its manifest.json replaced by `manifest` (any bytes). */
async function withManifest(manifest: Uint8Array | null): Promise<Uint8Array> {
  const { files } = await readZip(await snapshotBytes(AGENT), resolveLimits());
  const entries = [...files].filter(([name]) => name !== 'manifest.json').map(([name, data]) => ({ name, data }));
  return writeZip(manifest === null ? entries : [{ name: 'manifest.json', data: manifest }, ...entries]);
}

const agentField = (agent: unknown) => withManifest(jsonDocument({ alf_version: '1.0.0', created_at: '2026-05-01T00:00:00Z', agent, layers: {} }));

async function outcome(read: () => Promise<unknown>): Promise<unknown> {
  try {
    return { answer: await read() };
  } catch (error) {
    return { error: error instanceof Error ? `${error.constructor.name}: ${error.message}` : String(error) };
  }
}

describe('agentOfSnapshot reads the manifest only, with the whole read\'s answers', () => {
  const cases: [string, () => Promise<Uint8Array>][] = [
    ['the real writer\'s snapshot', () => snapshotBytes(AGENT)],
    ['a name and runtime of their own', () => agentField({ id: AGENT, name: 'Ünïcødé agent ✓', source_runtime: 'hermes' })],
    ['no name, no runtime', () => agentField({ id: AGENT })],
    ['a blank name', () => agentField({ id: AGENT, name: '   ', source_runtime: 'openclaw' })],
    ['a name with a line break', () => agentField({ id: AGENT, name: 'two\nlines', source_runtime: 'openclaw' })],
    ['a name of zero-width characters', () => agentField({ id: AGENT, name: '\u200b\u200b', source_runtime: 'openclaw' })],
    ['a 60 KB name', () => agentField({ id: AGENT, name: 'x'.repeat(60_000), source_runtime: 'openclaw' })],
    ['a name that is a number, a runtime that is an object', () => agentField({ id: AGENT, name: 42, source_runtime: { a: 1 } })],
    ['a runtime with a control character', () => agentField({ id: AGENT, name: 'ok', source_runtime: 'open\u0007claw' })],
    ['no agent.id', () => agentField({ name: 'no id' })],
    ['agent an array', () => agentField([AGENT])],
    ['manifest.json not JSON', () => withManifest(utf8('{"agent": '))],
    ['manifest.json a JSON array', () => withManifest(utf8('[1,2]'))],
    ['no manifest.json', () => withManifest(null)],
    ['a delta, not a snapshot', () => deltaBytes(AGENT, 0, 1)],
    ['not a zip', async () => utf8('plain text, not an archive')],
    ['no bytes', async () => new Uint8Array(0)],
  ];
  for (const [name, make] of cases) {
    it(name, async () => {
      const bytes = await make();
      expect(await outcome(() => agentOfSnapshot(AGENT, bytes))).toEqual(await outcome(() => wholeRead(AGENT, bytes)));
    });
  }

  it('a snapshot damaged past its manifest: the whole read refused it, the manifest is read; doctor registers nothing from it', async () => {
    const { files } = await readZip(await snapshotBytes(AGENT), resolveLimits());
    const partition = [...files.keys()].find((n) => n.endsWith('.jsonl'));
    expect(partition).toBeDefined();
    const damaged = await writeZip([...files].map(([name, data]) => ({ name, data: name === partition ? utf8('not a record\n') : data })));
    await expect(wholeRead(AGENT, damaged)).rejects.toThrow(/bad_record|not valid JSON|line 1/);
    expect(await agentOfSnapshot(AGENT, damaged)).toEqual({ name: 'test agent', sourceRuntime: 'openclaw' });

    // Doctor's re-registration: the blob stored under the key of the bytes it was (bit rot since).
    const t = tempLedger();
    try {
      const good = await snapshotBytes(AGENT);
      const key = blobKey(AGENT, 0, 'snapshot', sha256Hex(good));
      await t.ledger.blobs.put(key, damaged);
      expect((await findUnledgeredBlobs(t.ledger)).map((b) => [b.key, b.chains])).toEqual([[key, true]]);
      const [result] = await recoverUnledgered(t.ledger, historyIndexer);
      expect(result).toMatchObject({ agent_id: AGENT, sequence: 0, kind: 'snapshot', recovered: false });
      expect(result?.error).toContain(`the blob ${key} is damaged (its sha256 does not begin with ${sha256Hex(good).slice(0, 16)}): the agent is not registered again from it`);
      expect(getAgent({ ledger: t.ledger, agentId: AGENT })).toBeNull();

    } finally {
      t.cleanup();
    }
  });
});
