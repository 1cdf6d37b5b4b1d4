import { describe, expect, it } from 'vitest';
import { orderRecordFields, recordJson, type MemoryRecord } from './record';

const base = (): MemoryRecord => ({
  namespace: 'semantic',
  tags: ['a', 'b'],
  temporal: { updated_at: '2026-01-01T00:00:00Z', created_at: '2026-01-01T00:00:00Z' },
  id: '00000000-0000-5000-8000-000000000000',
  agent_id: 'agent',
  content: 'hé "quoted"\n\u2028 line',
  memory_type: 'semantic',
  source: { runtime: 'openclaw', origin_file: 'memory/x.md' },
  status: 'active',
  raw_source_format: { heading: null, line_start: 1, line_end: 2 },
});

describe('recordJson', () => {
  it('matches JSON.stringify(orderRecordFields(record)) for ordinary and odd records', () => {
    const cases: MemoryRecord[] = [
      base(),
      { ...base(), category: undefined, confidence: 0.5, zeta: 1, alpha: { b: 1, a: [1, null, 'x'] } },
      { ...base(), '10': 'index-like', extra: true } as MemoryRecord,
      JSON.parse('{"__proto__": {"x": 1}, "id": "i", "agent_id": "a", "content": "c", "memory_type": "m", "source": {"runtime": "r"}, "temporal": {"created_at": "t"}, "status": "s", "namespace": "n"}') as MemoryRecord,
      { ...base(), fn: (() => 1) as unknown as string, later: 'kept' },
      { ...base(), embeddings: [], entities: [{ name: 'x' }], supersedes: 'y' },
      { ...orderRecordFields(base()), extra: 1 },
      orderRecordFields({ ...base(), unknown: 'u', status: undefined as unknown as string }),
      { ...orderRecordFields(base()), extra: 1, status: 'late' },
    ];
    for (const record of cases) expect(recordJson(record)).toBe(JSON.stringify(orderRecordFields(record)));
  });
});
