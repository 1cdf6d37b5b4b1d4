import type { ReactNode } from 'react';
import clsx from 'clsx';

/** Placeholder rows shaped like the content that is loading. */
export function LoadingRows({ rows = 4, label = 'Loading' }: { rows?: number; label?: string }) {
  return (
    <div role="status" aria-label={label} data-testid="loading" className="space-y-2 p-4">
      {Array.from({ length: rows }, (_, i) => (
        <div key={i} className="flex items-center gap-3">
          <div className="h-3 w-24 animate-pulse rounded bg-zinc-200" />
          <div className={clsx('h-3 animate-pulse rounded bg-zinc-100', i % 2 ? 'w-2/3' : 'w-1/2')} />
        </div>
      ))}
    </div>
  );
}

export function EmptyState({ title, children, testId = 'empty-state' }: { title: string; children?: ReactNode; testId?: string }) {
  return (
    <div data-testid={testId} className="flex flex-col items-center justify-center gap-1 px-6 py-10 text-center">
      <div className="mb-1 text-xl text-faint" aria-hidden>
        ∅
      </div>
      <p className="text-[13px] font-medium text-ink">{title}</p>
      {children && <div className="max-w-md text-[12px] text-muted">{children}</div>}
    </div>
  );
}

export function ErrorState({ error, retry }: { error: unknown; retry?: () => void }) {
  const message = error instanceof Error ? error.message : String(error);
  const status = (error as { status?: number } | null)?.status;
  return (
    <div role="alert" data-testid="error-state" className="m-4 rounded-md border border-red-200 bg-delete-soft/50 px-4 py-3 text-[13px]">
      <p className="font-medium text-delete">{status === 404 ? 'Not found' : 'Something went wrong'}</p>
      <p className="mt-0.5 font-mono text-[12px] text-red-900/80">{message}</p>
      {retry && status !== 404 && (
        <button type="button" onClick={retry} className="mt-2 text-[12px] font-medium text-accent hover:underline">
          Try again
        </button>
      )}
    </div>
  );
}
