/** Deterministic prose for the generated workspace: word pickers over the shared seeded PRNG. */
export { prng } from '@/lib/core/prng';


const SUBJECTS = ['the deploy', 'redis', 'the kafka consumer', 'Dana', 'the VPN', 'backups', 'the CI runner', 'the billing job',
  'postgres', 'the grafana board', 'Sam', 'the staging cluster', 'nginx', 'the cron sweep', 'DNS', 'the API gateway'] as const;
const VERBS = ['restarted', 'flagged', 'migrated', 'tuned', 'rolled back', 'documented', 'paged about', 'patched', 'reviewed',
  'benchmarked', 'rotated keys for', 'split', 'archived', 'pinned'] as const;
const TAILS = ['after the alert at night', 'before the release', 'with a smaller batch size', 'as agreed in standup',
  'because latency doubled', 'to free disk space', 'per the runbook', 'with a canary first', 'and it held', 'twice'] as const;
export const TOPICS = ['infra', 'people', 'projects', 'preferences', 'tools', 'security', 'finance', 'research'] as const;

/** Picks one item. */
export function pick<T>(rand: () => number, items: readonly T[]): T {
  return items[Math.floor(rand() * items.length)]!;
}

/** One plain sentence. */
export function sentence(rand: () => number): string {
  const s = `${pick(rand, SUBJECTS)} ${pick(rand, VERBS)} ${pick(rand, TAILS)}`;
  return `${s[0]!.toUpperCase()}${s.slice(1)}.`;
}

/** A few sentences as a markdown paragraph with a bullet list. */
export function body(rand: () => number, sentences = 2 + Math.floor(rand() * 3)): string {
  const lines: string[] = [];
  for (let i = 0; i < sentences; i++) lines.push(i === 0 ? sentence(rand) : `- ${sentence(rand)}`);
  return lines.join('\n');
}

/** Six lowercase hex digits. */
export function hex6(rand: () => number): string {
  return Math.floor(rand() * 0x1000000).toString(16).padStart(6, '0');
}
