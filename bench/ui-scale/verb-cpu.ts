/**
 * The CPU time of each storage verb the ui-scale pages ask for, called in process on the cached fleet
 * (cache.ts; or `--dir DIR`, a copy of one): a figure other engineers' load on the machine barely
 * moves, for comparing before and after a change. Each verb runs once to warm up, then `--reps`
 * times; prints min and median CPU ms (process.cpuUsage) and the answer's JSON size. Writes nothing.
 *
 *   npx tsx bench/ui-scale/verb-cpu.ts [--dir DIR] [--reps 5] [--only records,sequence]
 */
import fs from 'node:fs';
import path from 'node:path';
import { openEmbeddedStorage } from '@/lib/storage/embedded';
import { cacheDir } from './cache';
import { FULL_SHAPE, type UiScaleManifest } from './generate';

const argv = process.argv.slice(2);
const value = (name: string) => {
  const i = argv.indexOf(name);
  return i >= 0 ? argv[i + 1] : undefined;
};
const reps = Number(value('--reps') ?? 5);
const only = value('--only')?.split(',');
const dir = value('--dir') ?? cacheDir(FULL_SHAPE);

async function main(): Promise<void> {
  const manifest = JSON.parse(fs.readFileSync(path.join(dir, 'manifest.json'), 'utf8')) as UiScaleManifest;
  const s = openEmbeddedStorage(path.join(dir, 'data'));
  const big = manifest.big.id;
  const fleet = manifest.fleet[0]!.id;
  const hot = s.ledger.db.sqlite.prepare('SELECT record_id FROM record_versions WHERE agent_id = ? GROUP BY record_id ORDER BY count(*) DESC, record_id LIMIT 1')
    .pluck().get(big) as string;
  const latest = manifest.big.syncs - 1;
  const old = Math.floor(manifest.big.syncs / 10);
  const file = s.ledger.db.sqlite.prepare('SELECT origin_file FROM records r JOIN record_versions v ON v.agent_id = r.agent_id AND v.record_id = r.record_id AND v.seq = r.last_seq WHERE r.agent_id = ? AND r.deleted_seq IS NULL AND v.origin_file IS NOT NULL ORDER BY v.origin_file LIMIT 1')
    .pluck().get(big) as string;
  const rawCursor = (await s.getSequence({ agentId: big, seq: 0, opsLimit: 100, rawLimit: 100 }))?.raw_cursor ?? undefined;
  const now = new Date();
  const since = new Date(now.getTime() - 7 * 86_400_000);
  const verbs: [string, () => Promise<unknown>][] = [
    ['agents with stats (home)', () => s.listAgentsWithStats({ now })],
    ['agent names (search filter)', () => s.listAgents({})],
    ['one agent with stats, big', () => s.getAgentWithStats({ agentId: big, now })],
    ['sequences page, big', () => s.getSequences({ agentId: big, limit: 50 })],
    ['records first page, big', () => s.getRecordsAt({ agentId: big, limit: 200 })],
    [`records first page at #${old}, big`, () => s.getRecordsAt({ agentId: big, at: old, limit: 200 })],
    ['records of one file, big', () => s.getRecordsAt({ agentId: big, limit: 1000, file })],
    [`records of one file at #${old}, big`, () => s.getRecordsAt({ agentId: big, at: old, limit: 1000, file })],
    [`records at #${old} by last change, big`, () => s.getRecordsAt({ agentId: big, at: old, limit: 200, sort: 'changed' })],
    ['fleet feed, 100', () => s.getChanges({ since, limit: 100 })],
    ['agent feed, big, 200', () => s.getChanges({ since, agentId: big, limit: 200 })],
    // What the sequence page asks for: the first page of each op kind and of the raw files.
    ['sequence #0, big', () => s.getSequence({ agentId: big, seq: 0, opsLimit: 100, rawLimit: 100 })],
    ['sequence #0 raw page 2, big', () => s.getSequenceRaw({ agentId: big, seq: 0, limit: 100, opsLimit: 100, cursor: rawCursor })],
    ['sequence latest, big', () => s.getSequence({ agentId: big, seq: latest, opsLimit: 100, rawLimit: 100 })],
    ['lineage, most versions', () => s.getRecordLineage({ agentId: big, recordId: hot, limit: 50, order: 'newest' })],
    ['workspace tree latest, big', () => s.getWorkspaceTree({ agentId: big, seq: latest })],
    [`workspace tree #${old}, big`, () => s.getWorkspaceTree({ agentId: big, seq: old })],
    ['search redis', () => s.search({ q: 'redis', limit: 50 })],
    ['search "rolled back"', () => s.search({ q: '"rolled back"', limit: 50 })],
    ['agent overview, fleet agent', () => s.getAgentWithStats({ agentId: fleet, now })],
    // The compare page (two sequences of the timeline) and a file's blame.
    [`compare #${old} -> latest, big`, () => s.compareWorkspace({ agentId: big, from: old, to: latest, limit: 200 })],
    ['compare latest-1 -> latest, big', () => s.compareWorkspace({ agentId: big, from: latest - 1, to: latest, limit: 200 })],
    [`blame of a file at #${old}, big`, () => s.getFileBlame({ agentId: big, seq: old, path: file })],
    ['blame of a file at latest, big', () => s.getFileBlame({ agentId: big, seq: latest, path: file })],
  ];
  for (const [name, run] of verbs) {
    if (only && !only.some((o) => name.includes(o))) continue;
    const cpu: number[] = [];
    let bytes = 0;
    for (let r = 0; r <= reps; r++) {
      const c0 = process.cpuUsage();
      const answer = await run();
      const c = process.cpuUsage(c0);
      if (r === 0) bytes = JSON.stringify(answer).length;
      else cpu.push((c.user + c.system) / 1000);
    }
    cpu.sort((a, b) => a - b);
    const ms = (n: number) => n.toFixed(1).padStart(7);
    process.stdout.write(`${name.padEnd(34)} cpu ms min ${ms(cpu[0]!)}  median ${ms(cpu[Math.floor(cpu.length / 2)]!)}  json ${bytes}\n`);
  }
  await s.close();
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
