'use client';

import { useState } from 'react';
import { shortId } from '@/lib/ui/format';
import { CheckIcon, CopyIcon } from './icons';

/** A shortened id in monospace; the full id is in the title and one click copies it. */
export function ShortId({ id, copy = true }: { id: string; copy?: boolean }) {
  const [copied, setCopied] = useState(false);
  const onCopy = async (event: React.MouseEvent) => {
    event.preventDefault();
    event.stopPropagation();
    try {
      await navigator.clipboard.writeText(id);
      setCopied(true);
      setTimeout(() => setCopied(false), 1200);
    } catch {
      // clipboard unavailable (insecure context): the title still shows the full id
    }
  };
  return (
    <span className="inline-flex items-center gap-1 font-mono text-[12px] text-muted" title={id} data-full-id={id}>
      {shortId(id)}
      {copy && (
        <button
          type="button"
          onClick={onCopy}
          aria-label={`Copy id ${id}`}
          className="inline-flex h-[24px] w-[24px] items-center justify-center rounded text-faint hover:bg-zinc-100 hover:text-ink"
        >
          {copied ? <CheckIcon /> : <CopyIcon />}
        </button>
      )}
    </span>
  );
}
