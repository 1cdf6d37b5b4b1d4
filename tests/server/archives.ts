import { randomBytes, randomUUID } from 'node:crypto';
import { writeDelta, writeSnapshot } from '@/lib/core/archive';
import type { AlfSnapshot } from '@/lib/core/archive/types';
import type { MemoryRecord } from '@/lib/core/record';

/** A valid memory record of `agentId`; `n` makes id and content unique. */
export function record(agentId: string, n: number, content = `fact number ${n}`): MemoryRecord {
  const hex = n.toString(16).padStart(12, '0');
  return {
    id: `0190a000-0000-7000-8000-${hex}`,
    agent_id: agentId,
    content,
    memory_type: 'semantic',
    source: { runtime: 'openclaw', origin: 'memory_md', origin_file: 'MEMORY.md' },
    temporal: { created_at: '2026-01-15T10:00:00Z' },
    status: 'active',
    namespace: 'curated',
  } as MemoryRecord;
}

/**
 * Layer documents the reference reader reads (its typed structs, CONTRACT §3.1): an identity, one
 * human principal with its profile, and `credentials` ciphertext-only credentials; each with an
 * unknown key (`name`), which it keeps.
 */
function layerDocs(agentId: string, credentials: number): AlfSnapshot['layers'] {
  const at = '2026-05-01T00:00:00Z';
  const principal = randomUUID();
  return {
    identity: { id: randomUUID(), agent_id: agentId, version: 1, updated_at: at, name: 'test agent' },
    principals: { principals: [{ id: principal, principal_type: 'human', profile: { id: randomUUID(), agent_id: agentId, principal_id: principal, version: 1, updated_at: at }, name: 'p' }] },
    ...(credentials > 0
      ? {
        credentials: {
          credentials: Array.from({ length: credentials }, (_, i) => ({
            id: randomUUID(), agent_id: agentId, service: `service-${i}`, credential_type: 'api_key', encrypted_payload: 'eA==',
            encryption: { algorithm: 'xchacha20-poly1305', nonce: 'BwcHBwcHBwcHBwcHBwcHBwcHBwcHBwcH' }, created_at: at, name: `c${i}`,
          })),
        },
      }
      : {}),
  };
}

/** A `.alf` made by the real writer; `rawBytes` adds an incompressible raw file of that size. */
export async function snapshotBytes(agentId: string, options: { records?: number; rawBytes?: number; credentials?: number } = {}): Promise<Uint8Array> {
  const records = Array.from({ length: options.records ?? 3 }, (_, i) => record(agentId, i + 1));
  const raw = new Map<string, Uint8Array>([['raw/openclaw/MEMORY.md', Buffer.from('# Memory\n\n## Fact 1\n')]]);
  if (options.rawBytes) raw.set('raw/openclaw/memory/blob.bin', randomBytes(options.rawBytes));
  const credentials = options.credentials ?? 0;
  return writeSnapshot({
    manifest: {
      alf_version: '1.0.0',
      created_at: '2026-05-01T00:00:00Z',
      agent: { id: agentId, name: 'test agent', source_runtime: 'openclaw' },
      layers: {},
    },
    records,
    layers: layerDocs(agentId, credentials),
    raw,
    extra: new Map(),
  });
}

/** A `.alf-delta` made by the real writer on `baseSequence`, creating record `n` and changing a raw file. */
export async function deltaBytes(agentId: string, baseSequence: number, n: number, options: { rawBytes?: number } = {}): Promise<Uint8Array> {
  const rawChanged = new Map<string, Uint8Array>([[`raw/openclaw/memory/day-${n}.md`, Buffer.from(`## Day ${n}\n\nnote ${n}\n`)]]);
  if (options.rawBytes) rawChanged.set('raw/openclaw/memory/big.bin', randomBytes(options.rawBytes));
  return writeDelta({
    manifest: {
      alf_version: '1.0.0',
      created_at: '2026-05-02T00:00:00Z',
      agent: { id: agentId, source_runtime: 'openclaw' },
      sync: { base_sequence: baseSequence, new_sequence: 0 },
      changes: {},
    },
    entries: [{ operation: 'create', record: record(agentId, 1000 + n, `delta fact ${n}`) }],
    layers: {},
    rawChanged,
    rawDeleted: [],
  });
}
