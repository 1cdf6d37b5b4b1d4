import type { ReactNode } from 'react';
import clsx from 'clsx';

/** A bordered white surface with an optional header row. */
export function Panel({ title, actions, children, className, testId, flush }: {
  title?: ReactNode;
  actions?: ReactNode;
  children: ReactNode;
  className?: string;
  testId?: string;
  flush?: boolean;
}) {
  return (
    <section data-testid={testId} className={clsx('rounded-lg border border-line bg-white', className)}>
      {(title || actions) && (
        <header className="flex min-h-10 flex-wrap items-center justify-between gap-x-3 gap-y-2 border-b border-line px-4 py-2">
          <h2 className="text-[13px] font-semibold text-ink">{title}</h2>
          {actions && <div className="flex min-w-0 flex-wrap items-center gap-2">{actions}</div>}
        </header>
      )}
      <div className={flush ? undefined : 'p-4'}>{children}</div>
    </section>
  );
}
