import Link from '@/components/ui/Link';
import type { ReactNode } from 'react';
import clsx from 'clsx';

const STYLE = {
  default: 'border border-line bg-white text-ink hover:bg-zinc-50 hover:border-zinc-300 shadow-xs',
  primary: 'border border-zinc-900 bg-zinc-900 text-white hover:bg-zinc-800',
  ghost: 'text-muted hover:bg-zinc-100 hover:text-ink',
} as const;

type Variant = keyof typeof STYLE;

const base = 'inline-flex h-7 items-center gap-1.5 whitespace-nowrap rounded-md px-2.5 text-[12px] font-medium disabled:opacity-50';

export function LinkButton({ href, children, variant = 'default', testId, download, title }: {
  href: string;
  children: ReactNode;
  variant?: Variant;
  testId?: string;
  download?: boolean;
  title?: string;
}) {
  if (download) {
    return (
      <a href={href} download className={clsx(base, STYLE[variant])} data-testid={testId} title={title}>
        {children}
      </a>
    );
  }
  return (
    <Link href={href} className={clsx(base, STYLE[variant])} data-testid={testId} title={title}>
      {children}
    </Link>
  );
}

export function Button({ children, variant = 'default', testId, onClick, disabled, type = 'button', pressed }: {
  children: ReactNode;
  variant?: Variant;
  testId?: string;
  onClick?: () => void;
  disabled?: boolean;
  type?: 'button' | 'submit';
  pressed?: boolean;
}) {
  return (
    <button type={type} onClick={onClick} disabled={disabled} aria-pressed={pressed} className={clsx(base, STYLE[variant])} data-testid={testId}>
      {children}
    </button>
  );
}
