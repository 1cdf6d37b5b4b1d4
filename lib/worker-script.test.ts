/**
 * workerScript: a worker entry (TypeScript, `@/` imports) bundled once into a script a Worker runs;
 * the script itself on later asks; null for an entry that cannot be built, tried again next time.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import { afterAll, describe, expect, it } from 'vitest';
import { sha256Hex } from '@/lib/core/uuid';
import { workerScript } from './worker-script';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'lineage-worker-script-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

const run = (script: string) => new Promise<unknown>((resolve, reject) => {
  const worker = new Worker(script, { eval: true, execArgv: [] });
  worker.once('message', (m) => { resolve(m); void worker.terminate(); });
  worker.once('error', reject);
});

describe('workerScript', () => {
  it('bundles the entry and what it imports into one script a Worker runs; later asks get the same script at once', async () => {
    const entry = path.join(dir, 'entry.ts');
    fs.writeFileSync(entry, "import { parentPort } from 'node:worker_threads';\nimport { sha256Hex } from '@/lib/core/uuid';\nparentPort!.postMessage(sha256Hex('worker'));\n");
    const script = workerScript(entry);
    const first = script();
    expect(first).toBeInstanceOf(Promise);
    const code = await first;
    expect(typeof code).toBe('string');
    expect(await run(code!)).toBe(sha256Hex('worker'));
    expect(script()).toBe(code);
  });

  it('answers null for an entry that does not build, and builds it on a later ask once it does', async () => {
    const entry = path.join(dir, 'later.ts');
    const script = workerScript(entry);
    expect(await script()).toBeNull();
    fs.writeFileSync(entry, "import { parentPort } from 'node:worker_threads';\nparentPort!.postMessage('now');\n");
    expect(await run((await script())!)).toBe('now');
  });
});
