import type { ReactNode } from 'react';
import clsx from 'clsx';

export type BadgeTone = 'neutral' | 'accent' | 'create' | 'update' | 'delete' | 'orange' | 'sky' | 'violet';

const TONES: Record<BadgeTone, string> = {
  neutral: 'bg-zinc-100 text-zinc-700 ring-zinc-200',
  accent: 'bg-accent-soft text-accent ring-blue-200',
  create: 'bg-create-soft text-create ring-green-200',
  update: 'bg-update-soft text-update ring-yellow-200',
  delete: 'bg-delete-soft text-delete ring-red-200',
  orange: 'bg-orange-50 text-orange-800 ring-orange-200',
  sky: 'bg-sky-50 text-sky-800 ring-sky-200',
  violet: 'bg-violet-50 text-violet-800 ring-violet-200',
};

export function Badge({ tone = 'neutral', mono, children, title, testId }: {
  tone?: BadgeTone;
  mono?: boolean;
  children: ReactNode;
  title?: string;
  testId?: string;
}) {
  return (
    <span
      title={title}
      data-testid={testId}
      className={clsx(
        'inline-flex items-center gap-1 whitespace-nowrap rounded-full px-2 py-px text-[11px] font-medium ring-1 ring-inset',
        mono && 'font-mono',
        TONES[tone],
      )}
    >
      {children}
    </span>
  );
}
