'use client';

import { Bar, BarChart, CartesianGrid, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';
import type { ActivityDay } from '@/lib/ui/api-types';
import { formatDay, formatShortDay, plural } from '@/lib/ui/format';
import { OP_COLORS } from './op-colors';

/** What the chart shows, in words, for screen readers (the chart itself is one labelled image, not a tab stop). */
function chartLabel(activity: ActivityDay[]): string {
  const sum = (pick: (d: ActivityDay) => number) => activity.reduce((n, d) => n + pick(d), 0);
  const first = activity[0]?.day;
  const last = activity[activity.length - 1]?.day;
  const span = first && last ? ` from ${formatShortDay(first)} to ${formatShortDay(last)}` : '';
  return `Record changes per day${span}: ${plural(sum((d) => d.creates), 'create')}, ${plural(sum((d) => d.updates), 'update')}, ${plural(sum((d) => d.deletes), 'delete')}`;
}

/** Creates / updates / moves / deletes per UTC day, stacked. */
export function ActivityChart({ activity }: { activity: ActivityDay[] }) {
  return (
    <div className="h-44 w-full text-faint" data-testid="activity-chart" role="img" aria-label={chartLabel(activity)}>
      <ResponsiveContainer width="100%" height="100%">
        <BarChart accessibilityLayer={false} data={activity} margin={{ top: 8, right: 8, bottom: 0, left: -18 }} barCategoryGap={3}>
          <CartesianGrid vertical={false} stroke="currentColor" strokeOpacity={0.15} />
          <XAxis dataKey="day" tickFormatter={formatShortDay} tick={{ fontSize: 10, fill: 'currentColor' }} tickLine={false} axisLine={{ stroke: 'currentColor', strokeOpacity: 0.3 }} interval={2} />
          <YAxis allowDecimals={false} tick={{ fontSize: 10, fill: 'currentColor' }} tickLine={false} axisLine={false} width={40} />
          <Tooltip
            cursor={{ fill: 'currentColor', fillOpacity: 0.08 }}
            labelFormatter={(day) => formatDay(String(day))}
            contentStyle={{ fontSize: 12, borderRadius: 6, borderColor: 'var(--color-line)', background: 'var(--color-white)', color: 'var(--color-ink)' }}
          />
          <Bar dataKey="creates" name="created" stackId="ops" fill={OP_COLORS.create} isAnimationActive={false} />
          <Bar dataKey="updates" name="updated" stackId="ops" fill={OP_COLORS.update} isAnimationActive={false} />
          <Bar dataKey="moves" name="moved" stackId="ops" fill={OP_COLORS.move} isAnimationActive={false} />
          <Bar dataKey="deletes" name="deleted" stackId="ops" fill={OP_COLORS.delete} radius={[2, 2, 0, 0]} isAnimationActive={false} />
        </BarChart>
      </ResponsiveContainer>
    </div>
  );
}

export function ActivityLegend() {
  const item = (color: string, label: string) => (
    <span className="inline-flex items-center gap-1">
      <span className="h-2 w-2 rounded-sm" style={{ background: color }} />
      {label}
    </span>
  );
  return (
    <span className="flex gap-3 text-[11px] font-normal text-muted">
      {item(OP_COLORS.create, 'created')}
      {item(OP_COLORS.update, 'updated')}
      {item(OP_COLORS.move, 'moved')}
      {item(OP_COLORS.delete, 'deleted')}
    </span>
  );
}
