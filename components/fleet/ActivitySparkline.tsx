'use client';

import { Bar, BarChart, Tooltip } from 'recharts';
import type { ActivityDay } from '@/lib/ui/api-types';
import { formatDay } from '@/lib/ui/format';
import { OP_COLORS } from '../agent/op-colors';

/** 28 tiny stacked bars (creates / updates / moves / deletes per day). */
export function ActivitySparkline({ activity }: { activity: ActivityDay[] }) {
  const total = activity.reduce((n, d) => n + d.creates + d.updates + d.deletes + d.moves, 0);
  return (
    <div data-testid="activity-sparkline" aria-label={`${total} record changes in the last ${activity.length} days`} role="img">
      <BarChart accessibilityLayer={false} width={140} height={28} data={activity} margin={{ top: 1, right: 0, bottom: 0, left: 0 }} barCategoryGap={1}>
        <Tooltip
          cursor={{ fill: 'var(--color-zinc-100)' }}
          wrapperStyle={{ zIndex: 30 }}
          content={({ active, payload }) => {
            const day = active ? (payload?.[0]?.payload as ActivityDay | undefined) : undefined;
            if (!day) return null;
            return (
              <div className="rounded border border-line bg-white px-2 py-1 text-[11px] shadow-sm">
                <div className="font-medium">{formatDay(day.day)}</div>
                <div className="font-mono text-muted">
                  +{day.creates} ~{day.updates} −{day.deletes} →{day.moves}
                </div>
              </div>
            );
          }}
        />
        <Bar dataKey="creates" stackId="a" fill={OP_COLORS.create} isAnimationActive={false} />
        <Bar dataKey="updates" stackId="a" fill={OP_COLORS.update} isAnimationActive={false} />
        <Bar dataKey="moves" stackId="a" fill={OP_COLORS.move} isAnimationActive={false} />
        <Bar dataKey="deletes" stackId="a" fill={OP_COLORS.delete} isAnimationActive={false} />
      </BarChart>
    </div>
  );
}
