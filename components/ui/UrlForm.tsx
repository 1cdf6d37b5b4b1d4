'use client';

import { usePathname, useSearchParams } from 'next/navigation';
import type { FormEvent, ReactNode } from 'react';

/**
 * A form whose fields are query parameters of the current view. Before hydration it is a plain GET
 * form to this page (the other parameters ride along as hidden fields, minus `drop`), so what a user
 * typed and submitted early still lands in the URL. After hydration `onSubmit` gets the form's own
 * values (read from the fields, not from React state, which may have missed early keystrokes). Keep
 * the fields uncontrolled (`defaultValue`, keyed by the URL's value): hydration then never resets
 * what a user typed before it.
 */
export function UrlForm({ fields, drop = [], action, onSubmit, className, children }: {
  /** The parameters the form's own inputs carry (each input's `name`). */
  fields: string[];
  /** Parameters that a submission resets (not carried as hidden fields). */
  drop?: string[];
  /** Where the GET form goes; the current page by default. */
  action?: string;
  onSubmit: (values: FormData, form: HTMLFormElement) => void;
  className?: string;
  children: ReactNode;
}) {
  const pathname = usePathname();
  const params = useSearchParams();
  const skip = new Set([...fields, ...drop]);
  const carried = [...params.entries()].filter(([key]) => !skip.has(key));
  return (
    <form
      action={action ?? pathname}
      method="get"
      className={className}
      onSubmit={(event: FormEvent<HTMLFormElement>) => {
        event.preventDefault();
        onSubmit(new FormData(event.currentTarget), event.currentTarget);
      }}
    >
      {carried.map(([key, value]) => (
        <input key={`${key}=${value}`} type="hidden" name={key} value={value} />
      ))}
      {children}
    </form>
  );
}

/** A submitted field as trimmed text, or null when empty. */
export function formText(values: FormData, name: string): string | null {
  const value = values.get(name);
  return typeof value === 'string' && value.trim() ? value.trim() : null;
}
