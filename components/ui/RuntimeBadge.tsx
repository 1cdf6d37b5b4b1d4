import { runtimeLabel } from '@/lib/ui/runtime-label';
import { Badge, type BadgeTone } from './Badge';

const TONES: Record<string, BadgeTone> = { openclaw: 'orange', zeroclaw: 'sky', hermes: 'violet' };

export { runtimeLabel };

export function RuntimeBadge({ runtime }: { runtime: string | null }) {
  return (
    <Badge tone={(runtime ? TONES[runtime] : undefined) ?? 'neutral'} testId="runtime-badge">
      <span aria-hidden className="h-1.5 w-1.5 rounded-full bg-current opacity-70" />
      {runtimeLabel(runtime)}
    </Badge>
  );
}
