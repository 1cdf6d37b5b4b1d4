import type { ReactNode, SelectHTMLAttributes } from 'react';
import clsx from 'clsx';
import { rovingKeyDown } from '@/lib/ui/roving';

export function Select({ label, className, children, ...props }: SelectHTMLAttributes<HTMLSelectElement> & { label: string }) {
  return (
    <label className="inline-flex min-w-0 items-center gap-1.5 text-[12px] text-muted">
      <span>{label}</span>
      <select
        {...props}
        className={clsx(
          'h-7 w-auto min-w-0 max-w-44 rounded-md border border-line bg-white px-2 text-[12px] text-ink shadow-xs hover:border-zinc-300',
          className,
        )}
      >
        {children}
      </select>
    </label>
  );
}

/** A row of mutually exclusive choices (a segmented control). */
export function Segmented<T extends string>({ value, options, onChange, testId, label }: {
  value: T;
  options: { value: T; label: ReactNode }[];
  onChange: (value: T) => void;
  testId?: string;
  label: string;
}) {
  return (
    <div role="radiogroup" aria-label={label} data-testid={testId} className="inline-flex max-w-full flex-wrap rounded-md border border-line bg-white p-0.5">
      {options.map((o, index) => (
        <button
          key={o.value}
          type="button"
          role="radio"
          aria-checked={o.value === value}
          tabIndex={o.value === value || (index === 0 && !options.some((x) => x.value === value)) ? 0 : -1}
          onKeyDown={rovingKeyDown('radio', index, options.length, (i) => onChange(options[i]!.value))}
          data-value={o.value}
          onClick={() => onChange(o.value)}
          className={clsx(
            'h-6 whitespace-nowrap rounded px-2.5 text-[12px] font-medium',
            o.value === value ? 'bg-zinc-900 text-white' : 'text-muted hover:bg-zinc-100 hover:text-ink',
          )}
        >
          {o.label}
        </button>
      ))}
    </div>
  );
}
