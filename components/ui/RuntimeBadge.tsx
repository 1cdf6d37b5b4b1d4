import { Badge, type BadgeTone } from './Badge';

const RUNTIMES: Record<string, { label: string; tone: BadgeTone }> = {
  openclaw: { label: 'OpenClaw', tone: 'orange' },
  zeroclaw: { label: 'ZeroClaw', tone: 'sky' },
  hermes: { label: 'Hermes', tone: 'violet' },
};

export function runtimeLabel(runtime: string | null): string {
  return runtime ? (RUNTIMES[runtime]?.label ?? runtime) : 'unknown';
}

export function RuntimeBadge({ runtime }: { runtime: string | null }) {
  const known = runtime ? RUNTIMES[runtime] : undefined;
  return (
    <Badge tone={known?.tone ?? 'neutral'} testId="runtime-badge">
      <span aria-hidden className="h-1.5 w-1.5 rounded-full bg-current opacity-70" />
      {runtimeLabel(runtime)}
    </Badge>
  );
}
