import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { readOrMintAgentId, writeAgentIdFile } from './agent-id';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

const A = '11111111-1111-4111-8111-111111111111';
const B = '22222222-2222-4222-8222-222222222222';

describe('.alf-agent-id is replaced whole', () => {
  it('a reader meanwhile finds the old id or the new one, never an empty or partial file', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'lineage-agent-id-'));
    dirs.push(dir);
    await writeAgentIdFile(dir, A);
    const seen = new Set<string>();
    let writing = true;
    // Reads on every turn of the event loop while the writes' steps (open, write, rename) are in flight.
    const reader = (async () => {
      while (writing) {
        seen.add(fs.readFileSync(path.join(dir, '.alf-agent-id'), 'utf8'));
        await new Promise((resolve) => setImmediate(resolve));
      }
    })();
    for (let i = 0; i < 300; i++) await writeAgentIdFile(dir, i % 2 === 0 ? B : A);
    writing = false;
    await reader;
    expect([...seen].sort()).toEqual([A, B]);
    expect(fs.readdirSync(dir)).toEqual(['.alf-agent-id']);
    // And the id read back is the one written.
    expect(await readOrMintAgentId({ workspace: dir, runtime: 'openclaw', persist: false })).toBe(A);
  });
});
