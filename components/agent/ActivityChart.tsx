'use client';

import { Bar, BarChart, CartesianGrid, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';
import type { ActivityDay } from '@/lib/ui/api-types';
import { formatDay } from '@/lib/ui/format';
import { OP_COLORS } from './op-colors';

const shortDay = (day: string) => `${Number(day.slice(8, 10))}/${Number(day.slice(5, 7))}`;

/** Creates / updates / moves / deletes per UTC day, stacked. */
export function ActivityChart({ activity }: { activity: ActivityDay[] }) {
  return (
    <div className="h-44 w-full" data-testid="activity-chart">
      <ResponsiveContainer width="100%" height="100%">
        <BarChart data={activity} margin={{ top: 8, right: 8, bottom: 0, left: -18 }} barCategoryGap={3}>
          <CartesianGrid vertical={false} stroke="#f0f0f2" />
          <XAxis dataKey="day" tickFormatter={shortDay} tick={{ fontSize: 10, fill: '#8b8d98' }} tickLine={false} axisLine={{ stroke: '#e4e4e7' }} interval={2} />
          <YAxis allowDecimals={false} tick={{ fontSize: 10, fill: '#8b8d98' }} tickLine={false} axisLine={false} width={40} />
          <Tooltip
            cursor={{ fill: '#f4f4f5' }}
            labelFormatter={(day) => formatDay(String(day))}
            contentStyle={{ fontSize: 12, borderRadius: 6, borderColor: '#e4e4e7' }}
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
