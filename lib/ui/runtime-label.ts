/** A runtime's name as the dashboard writes it (the badge's text, the fleet's filter). */
const LABELS: Record<string, string> = { openclaw: 'OpenClaw', zeroclaw: 'ZeroClaw', hermes: 'Hermes' };

export function runtimeLabel(runtime: string | null): string {
  return runtime ? (LABELS[runtime] ?? runtime) : 'unknown';
}
