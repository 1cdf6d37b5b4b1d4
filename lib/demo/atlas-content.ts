/**
 * The text of atlas's Memory v4.1 workspace: files rendered from small section lists, and the
 * pools of routine episodic entries the scenario draws from.
 */
import { ATLAS_FILES, DEMO_FACTS } from './facts';

export interface Section {
  heading: string;
  body: string;
}

/** A tiered markdown file: `# Title`, `#tags:` on line 2, then `## ` sections. */
export function renderTiered(title: string, tags: readonly string[], sections: readonly Section[]): string {
  const parts = sections.map((s) => `## ${s.heading}\n${s.body.trimEnd()}\n`);
  return `# ${title}\n#tags: ${tags.join(', ')}\n\n${parts.join('\n')}`;
}

/** Replaces (or appends) the section with that heading, keeping the others in place. */
export function upsertSection(sections: Section[], heading: string, body: string): void {
  const existing = sections.find((s) => s.heading === heading);
  if (existing) existing.body = body;
  else sections.push({ heading, body });
}

export const IDENTITY_MD = `# IDENTITY.md
- **Name:** atlas
- **Role:** operations assistant for a homelab and two side projects
- **Vibe:** terse, careful, writes things down before answering
`;

export const SOUL_MD = `# SOUL.md
Files before responses. If it matters, it goes into memory first.
Prefer reversible changes; say so when a change is not.
`;

export const ARCHIVE_SCRIPT = `#!/usr/bin/env bash
# Moves episodic notes older than N days (default 30) into memory/archive/YYYY/MM/.
set -euo pipefail
ttl="\${1:-30}"
cd "$(dirname "$0")/.."
find episodic -name '????-??-??.md' -mtime +"$ttl" | while read -r f; do
  d="$(basename "$f" .md)"; dest="archive/\${d:0:4}/\${d:5:2}"
  mkdir -p "$dest" && mv "$f" "$dest/"
done
`;

export const HEALTH_SCRIPT = `#!/usr/bin/env bash
# Invariants: #tags: on line 2, buffer < 80 lines, closure blocks present.
set -euo pipefail
cd "$(dirname "$0")/.."
fail=0
for f in semantic/*.md procedural/*.md; do sed -n 2p "$f" | grep -q '^#tags:' || { echo "FAIL tags $f"; fail=1; }; done
[ "$(wc -l < working-buffer.md)" -lt 80 ] || { echo "FAIL buffer"; fail=1; }
exit $fail
`;

/** The gateway section as it evolves: four versions over the scenario. */
export function gatewaySection(version: 1 | 2 | 3 | 4, verified: string): string {
  const forward = 'Port forward 443 → 10.20.0.40 (caddy), nothing else exposed.';
  switch (version) {
    case 1:
      return `LAN gateway: ${DEMO_FACTS.oldGatewayIp} (OPNsense on the old NUC).\nDNS 10.20.0.53, DHCP pool 10.20.0.100-199.\nlast_verified: ${verified}`;
    case 2:
      return `LAN gateway: ${DEMO_FACTS.oldGatewayIp} (OPNsense on the old NUC).\nDNS 10.20.0.53, DHCP pool 10.20.0.100-199.\n${forward}\nlast_verified: ${verified}`;
    case 3:
      return `LAN gateway: ${DEMO_FACTS.newGatewayIp} (OPNsense on the new fanless box; the NUC is retired).\nDNS 10.20.0.53, DHCP pool 10.20.0.100-199.\n${forward}\nlast_verified: ${verified}`;
    case 4:
      return `LAN gateway: ${DEMO_FACTS.newGatewayIp} (OPNsense on the new fanless box; the NUC is retired).\nDNS 10.20.0.53, DHCP pool 10.20.0.100-199.\n${forward}\nWireGuard endpoint on udp/51820 for the travel laptop.\nlast_verified: ${verified}`;
  }
}

export const QUEUE_DECISION = `${DEMO_FACTS.decision} (SKIP LOCKED workers) — one less service to run.\nWhy: the audit pipeline already depends on Postgres; volume is ~200 jobs/min.`;

export const QUEUE_REVERSAL = `${DEMO_FACTS.reversal}.\nWhy: lock contention on the jobs table at ~2k jobs/min during the backfill; consumer groups give us replay for free.\nSupersedes the decision of the first week.`;

export const EVENT_TOKEN_NOTE = `- Replayed failed billing webhook ${DEMO_FACTS.eventToken} after the provider's outage; ledger totals match again.\n- Added an alert on webhook retries > 3.`;

export const SUSPICIOUS_PAGE_NOTE = `- The user forwarded a "free GPU credits" page. Quoted from its source: ${DEMO_FACTS.xssScript} and ${DEMO_FACTS.xssImage}\n- Verdict: phishing. Did not open any link; told the user not to sign in there.`;

/** Routine episodic entries: [heading, what happened]. */
export const ROUTINE_ENTRIES: readonly (readonly [string, string])[] = [
  ['Backups', 'restic snapshot of /srv verified, 41 GB, prune kept 14 dailies'],
  ['Disk check', 'zfs scrub on tank finished clean; smart shows sdb at 38°C'],
  ['queue-service', 'wrote the retry policy tests; two flaky ones pinned to a fake clock'],
  ['Updates', 'unattended-upgrades pulled openssl; restarted caddy and synapse'],
  ['Matrix', 'coturn logs noisy again; raised the relay port range to 49160-49200'],
  ['Review', 'read through the audit-skills PR; asked for a smaller diff'],
  ['Monitoring', 'uptime-kuma flagged the photo share twice; DNS flapped for 40 s'],
  ['Docs', 'rewrote the runbook for rotating the tailscale auth key'],
  ['queue-service', 'benchmark: 1.4k jobs/min sustained, p99 claim latency 38 ms'],
  ['Security', 'fail2ban banned 212 IPs overnight, all ssh; nothing got through'],
  ['Homelab', 'moved the qdrant container to the SSD pool; reindex took 6 minutes'],
  ['Travel prep', 'checked that the VPN profile on the laptop still connects'],
];

export const CLOSURE_SIGNALS: readonly string[] = [
  'the backup window is the only time the disks get hot',
  'most alerts this week were DNS, not hardware',
  'tests with a real clock are the flaky ones',
  'the user prefers one summary message at the end of the day',
  'nothing surprising today',
];

export const LESSONS: readonly Section[] = [
  { heading: 'Verify restores, not backups', body: 'A green backup job proved nothing last month. Restore one file weekly.' },
  { heading: 'Pin the clock in tests', body: 'Every flaky test this month read the wall clock. Inject it.' },
  { heading: 'Change one network thing at a time', body: 'The gateway swap went fine because DHCP and DNS stayed put. Never move both in one evening.' },
  { heading: 'Write the decision and the why', body: 'The queue reversal was painless because decisions.md said why Postgres was chosen; the reason no longer held.' },
  { heading: 'Do not trust forwarded pages', body: 'Treat pasted HTML as hostile: quote it as text, never render it.' },
  { heading: 'Rotate the buffer before it rots', body: 'A buffer left over a weekend lost its context. Rotate at the end of each day with work in it.' },
];

export function archivePathFor(episodicRel: string): string {
  const date = episodicRel.slice('memory/episodic/'.length, -'.md'.length);
  return `memory/archive/${date.slice(0, 4)}/${date.slice(5, 7)}/${date}.md`;
}

export const EPISODIC_TTL_DAYS = 10;

export { ATLAS_FILES };
