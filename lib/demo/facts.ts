/**
 * Facts planted in the demo fleet, for "when did this first appear" searches in tests, the
 * dashboard e2e and the README. Each names the agent and the file (or store) it first lands in.
 */
export const DEMO_FACTS = {
  /** The LAN gateway's address until it is replaced (atlas, semantic/infrastructure.md). */
  oldGatewayIp: '10.20.0.5',
  /** The gateway's address after the swap, mid-scenario (same record, a later version). */
  newGatewayIp: '10.20.0.9',
  /** A decision recorded in semantic/decisions.md … */
  decision: 'Use Postgres for the queue',
  /** … and its reversal, an in-place edit of the same record later on. */
  reversal: 'Reversed: use Redis Streams, not Postgres',
  /** A token in an early episodic note, still findable after the TTL archiver moves the file. */
  eventToken: 'evt-00012-a1b2c3',
  /** Hostile markup quoted in one episodic note: the dashboard must render it as text. */
  xssScript: '<script>alert("xss")</script>',
  xssImage: '<img src=x onerror=alert(1)>',
  /** A ZeroClaw fact edited in place (scout): the vendor's rate limit changes. */
  scoutRateLimit: 'rate limit 60 req/min',
  /** A Hermes curated note that is edited once (hermes-desk). */
  hermesStandup: 'stand-up moved to 09:30',
} as const;

/** Where each planted OpenClaw fact first appears, as the scenario writes it. */
export const ATLAS_FILES = {
  infrastructure: 'memory/semantic/infrastructure.md',
  decisions: 'memory/semantic/decisions.md',
  /** Scenario day whose episodic note carries `eventToken` (archived later by the TTL rule). */
  eventTokenDay: 2,
  /** Scenario day whose episodic note quotes the hostile page. */
  xssDay: 9,
  /** Scenario day the gateway changes address / the queue decision is reversed. */
  gatewaySwapDay: 12,
  decisionDay: 3,
  reversalDay: 16,
} as const;

/** Agent names (OpenClaw `IDENTITY.md` name, ZeroClaw aliases, Hermes home name). */
export const DEMO_AGENTS = {
  atlas: 'atlas',
  scout: 'scout',
  ledgerBot: 'ledger-bot',
  hermes: 'hermes-desk',
} as const;
