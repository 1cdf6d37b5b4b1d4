'use client';

import { useEffect, useState } from 'react';

/** A sequence number field (0…latest) that commits on Enter or blur, with a "latest" shortcut. */
export function SequenceInput({ value, latest, onChange, testId = 'sequence-input' }: {
  value: number;
  latest: number;
  onChange: (seq: number | null) => void;
  testId?: string;
}) {
  const [draft, setDraft] = useState(String(value));
  useEffect(() => setDraft(String(value)), [value]);
  const commit = () => {
    const n = Number(draft);
    if (Number.isInteger(n) && n >= 0 && n <= latest) onChange(n === latest ? null : n);
    else setDraft(String(value));
  };
  return (
    <div className="inline-flex items-center gap-1.5 text-[12px] text-muted">
      <label htmlFor={testId}>At sequence</label>
      <span className="inline-flex items-center rounded-md border border-line bg-white pl-1.5 shadow-xs">
        <span className="font-mono text-faint">#</span>
        <input
          id={testId}
          data-testid={testId}
          type="number"
          min={0}
          max={latest}
          value={draft}
          onChange={(e) => setDraft(e.target.value)}
          onBlur={commit}
          onKeyDown={(e) => e.key === 'Enter' && commit()}
          className="h-7 w-16 bg-transparent px-1 font-mono text-[12px] text-ink outline-none"
        />
      </span>
      <span className="text-faint">of {latest}</span>
      {value !== latest && (
        <button type="button" onClick={() => onChange(null)} className="text-accent hover:underline" data-testid={`${testId}-latest`}>
          latest
        </button>
      )}
    </div>
  );
}
