'use client';

import { useState } from 'react';
import type { ActivityDay } from '@/lib/ui/api-types';
import { formatDay } from '@/lib/ui/format';
import { OP_COLORS } from '../agent/op-colors';

const WIDTH = 140;
const HEIGHT = 28;
const TOP = 1;
/** Bottom to top of each day's stack. */
const STACK = [
  ['creates', OP_COLORS.create],
  ['updates', OP_COLORS.update],
  ['moves', OP_COLORS.move],
  ['deletes', OP_COLORS.delete],
] as const;

const dayTotal = (d: ActivityDay) => d.creates + d.updates + d.deletes + d.moves;
const r = (n: number) => Math.round(n * 100) / 100;

/**
 * 28 tiny stacked bars (creates / updates / moves / deletes per day), drawn as one path per op: a
 * few elements per row, where a chart library drew about 200 (the fleet table has one per agent,
 * 101 at fleet scale: 21,000 elements). The day under the pointer is shown beside it.
 */
export function ActivitySparkline({ activity }: { activity: ActivityDay[] }) {
  const [hover, setHover] = useState<number | null>(null);
  const total = activity.reduce((n, d) => n + dayTotal(d), 0);
  const max = Math.max(1, ...activity.map(dayTotal));
  const slot = WIDTH / Math.max(1, activity.length);
  const bar = Math.max(1, slot - 1);
  const paths = STACK.map(([key, fill]) => {
    let d = '';
    activity.forEach((day, i) => {
      let y = HEIGHT;
      for (const [k] of STACK) {
        const h = (day[k] / max) * (HEIGHT - TOP);
        if (h > 0 && k === key) d += `M${r(i * slot)} ${r(y - h)}h${r(bar)}v${r(h)}h${r(-bar)}Z`;
        y -= h;
      }
    });
    return { key, fill, d };
  });
  const day = hover === null ? undefined : activity[hover];
  return (
    <div
      data-testid="activity-sparkline"
      aria-label={`${total} record changes in the last ${activity.length} days`}
      role="img"
      className="relative inline-block align-middle"
      onMouseMove={(e) => {
        const x = e.clientX - e.currentTarget.getBoundingClientRect().left;
        setHover(Math.min(activity.length - 1, Math.max(0, Math.floor(x / slot))));
      }}
      onMouseLeave={() => setHover(null)}
    >
      <svg width={WIDTH} height={HEIGHT} viewBox={`0 0 ${WIDTH} ${HEIGHT}`} aria-hidden="true" className="block">
        {hover !== null && <rect x={r(hover * slot)} y={0} width={r(slot)} height={HEIGHT} fill="var(--color-zinc-100)" />}
        {paths.map((p) => p.d && <path key={p.key} d={p.d} fill={p.fill} />)}
      </svg>
      {day && (
        <div aria-hidden="true" className="pointer-events-none absolute left-0 top-full z-30 mt-1 whitespace-nowrap rounded border border-line bg-white px-2 py-1 text-[11px] shadow-sm">
          <div className="font-medium">{formatDay(day.day)}</div>
          <div className="font-mono text-muted">
            +{day.creates} ~{day.updates} −{day.deletes} →{day.moves}
          </div>
        </div>
      )}
    </div>
  );
}
