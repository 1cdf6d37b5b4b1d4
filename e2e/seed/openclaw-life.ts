/**
 * A scripted OpenClaw (v4.1 layout) agent life for the browser tests: each step rewrites the
 * workspace, then the real sync pipeline runs. The facts below are what the specs look for.
 */
export const FACTS = {
  agentName: 'Vega',
  /** Planted at step 2 (sequence 2) in memory/semantic/infrastructure.md. */
  searchFact: 'orchid-lattice-42',
  searchFactFile: 'memory/semantic/infrastructure.md',
  searchFactSeq: 2,
  /** The memory with several versions (sequences 0, 1, 3, 5). */
  lineageHeading: 'Editor preferences',
  lineageVersions: [0, 1, 3, 5],
  /** Heading of the memory with raw HTML in it. */
  xssHeading: 'Pasted snippet',
  /** The file the workspace spec opens, and a line it has at sequence 1 but not later. */
  workspaceFile: 'MEMORY.md',
  workspaceSeq: 1,
} as const;

export type Files = Record<string, string>;

const identity = `# Identity\n\nName: Vega\nRole: infrastructure assistant for the platform team\n`;
const soul = `# Soul\n\nCalm, precise, writes things down.\n`;

function memoryMd(prefs: string, team: string | null, gateway: string): string {
  const parts = [
    '# MEMORY',
    '',
    '## Editor preferences',
    '',
    prefs,
    '',
    '## Gateway',
    '',
    `The production gateway lives at ${gateway} behind the HAProxy pair.`,
    '',
  ];
  if (team !== null) parts.push('## Team', '', team, '');
  return parts.join('\n');
}

const PREFS = [
  'Maya prefers tabs over spaces and a dark theme in every editor.',
  'Maya prefers spaces over tabs (two of them) and a dark theme in every editor.',
  'Maya prefers spaces over tabs (two of them), a light theme by day, and format-on-save everywhere.',
  'Maya prefers spaces over tabs (two of them), a light theme by day, format-on-save everywhere, and no trailing whitespace in commits.',
];

const TEAM = 'The platform team is Maya, Jonas and Priya; Jonas owns on-call rotations.';

const XSS_NOTE = [
  '## Pasted snippet',
  '',
  'A user pasted this into the chat, keep it verbatim: <script>alert(1)</script> and <img src=x onerror=alert(1)> were both in it.',
  '',
].join('\n');

const buffer = (n: number) => `# Working buffer\n\n## Current focus\n\nRotation ${n}: watching the deploy queue.\n`;

/** The workspace file set at each step; the seed syncs after writing each one. */
export function lifeSteps(today: string, yesterday: string, archiveDir: string): Files[] {
  const episodic = `## Morning standup\n\nDiscussed the gateway migration window.\n\n## Afternoon\n\nRolled the canary to 10%.\n`;
  const infra = (withFact: boolean) =>
    [
      '## Clusters',
      '',
      'Staging runs on three nodes in eu-west.',
      '',
      ...(withFact ? ['## Vault', '', 'The break-glass vault passphrase id is orchid-lattice-42 (rotated quarterly).', ''] : []),
    ].join('\n');
  const base: Files = { 'IDENTITY.md': identity, 'SOUL.md': soul };
  return [
    { ...base, 'MEMORY.md': memoryMd(PREFS[0]!, TEAM, '10.42.0.7'), 'memory/semantic/infrastructure.md': infra(false), 'memory/working-buffer.md': buffer(1), [`memory/episodic/${yesterday}.md`]: episodic },
    { ...base, 'MEMORY.md': memoryMd(PREFS[1]!, TEAM, '10.42.0.7'), 'memory/semantic/infrastructure.md': infra(false), 'memory/working-buffer.md': buffer(1), [`memory/episodic/${yesterday}.md`]: episodic },
    { ...base, 'MEMORY.md': memoryMd(PREFS[1]!, TEAM, '10.42.0.7'), 'memory/semantic/infrastructure.md': infra(true), 'memory/working-buffer.md': buffer(2), [`memory/episodic/${yesterday}.md`]: episodic },
    { ...base, 'MEMORY.md': memoryMd(PREFS[2]!, TEAM, '10.42.0.9'), 'memory/semantic/infrastructure.md': infra(true), 'memory/working-buffer.md': buffer(2), [`memory/episodic/${yesterday}.md`]: episodic, 'memory/semantic/notes.md': XSS_NOTE },
    // the daily log is archived (a move between files) and today's log starts
    { ...base, 'MEMORY.md': memoryMd(PREFS[2]!, TEAM, '10.42.0.9'), 'memory/semantic/infrastructure.md': infra(true), 'memory/working-buffer.md': buffer(3), [`${archiveDir}/${yesterday}.md`]: episodic, [`memory/episodic/${today}.md`]: '## Morning\n\nChecked the overnight alerts: all quiet.\n', 'memory/semantic/notes.md': XSS_NOTE },
    // the team section is dropped (a tombstone) and the preference is edited once more
    { ...base, 'MEMORY.md': memoryMd(PREFS[3]!, null, '10.42.0.9'), 'memory/semantic/infrastructure.md': infra(true), 'memory/working-buffer.md': buffer(3), [`${archiveDir}/${yesterday}.md`]: episodic, [`memory/episodic/${today}.md`]: '## Morning\n\nChecked the overnight alerts: all quiet.\n', 'memory/semantic/notes.md': XSS_NOTE },
  ];
}
