import { randomUUID } from 'node:crypto';
import fs from 'node:fs'; import os from 'node:os'; import path from 'node:path';
import { readSnapshot, writeSnapshot } from '@/lib/core/archive';
import { checkSnapshotServable, ingestSnapshot, openLedger, registerAgent } from '@/lib/ledger';
import { record } from '@/tests/server/archives';
const agent = randomUUID();
const N = Number(process.argv[2] ?? 200000);
let t = performance.now();
const bytes = await writeSnapshot({ manifest: { alf_version: '1.0.0', created_at: '2026-05-01T00:00:00Z', agent: { id: agent, name: 'big', source_runtime: 'openclaw' }, layers: {} },
  records: Array.from({ length: N }, (_, i) => ({ ...record(agent, i + 1, `fact number ${i} about the thing ${i % 977}`), temporal: { created_at: `${2000 + (i % 20)}-${String((i % 12) + 1).padStart(2, '0')}-15T10:00:00Z` } })), layers: {}, raw: new Map(), extra: new Map() });
console.log('write', (performance.now() - t).toFixed(0), 'ms', bytes.byteLength);
t = performance.now(); const s = await readSnapshot(bytes); console.log('read', (performance.now() - t).toFixed(0));
t = performance.now(); checkSnapshotServable(s); console.log('check', (performance.now() - t).toFixed(0));
const ledger = openLedger(fs.mkdtempSync(path.join(os.tmpdir(), 'ph-')));
registerAgent({ ledger, id: agent, name: 'b', sourceRuntime: 'openclaw', tenantId: null, now: new Date() });
t = performance.now(); await ingestSnapshot({ ledger, agentId: agent, bytes, now: new Date() }); console.log('ingest total', (performance.now() - t).toFixed(0));
