import path from 'node:path';
import { expect } from 'vitest';
import { readTree } from '@/lib/sync/testing/workspace';
import { runCli } from './run-cli';

/**
 * Every sequence of an OpenClaw agent restores, by `lineage restore --at-sequence N --out DIR`
 * into a new directory under `root`, to the workspace as it was synced then, byte-exact:
 * `states[N]` (readTree's). What the crash, concurrency and compaction tests ask of a ledger and a
 * client state after they are done.
 */
export async function expectEverySequenceRestores(args: {
  root: string; dataDir: string; agentId: string; states: readonly Map<string, Buffer>[]; env: Record<string, string>;
}): Promise<void> {
  for (let seq = 0; seq < args.states.length; seq++) {
    const out = path.join(args.root, `restore-${seq}-${Math.random().toString(36).slice(2)}`);
    const run = await runCli(['restore', '--agent', args.agentId, '--at-sequence', String(seq), '--out', out, '--data', args.dataDir], args.env);
    expect(run.json, `sequence ${seq}: ${run.stderr}`).toMatchObject({ ok: true });
    expect(await readTree(out), `sequence ${seq}`).toEqual(args.states[seq]);
  }
}
