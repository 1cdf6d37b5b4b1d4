'use client';

import { useEffect, useState } from 'react';
import { AS_OF_FORMAT } from '@/lib/ui/as-of';
import { SequenceInput } from '../agent/SequenceInput';
import { formText, UrlForm } from '../ui/UrlForm';

/**
 * Pick the sequence by number, by slider, or as of a date ("the workspace as it was then"). The date
 * is the page's `?as_of=` parameter; the workspace view resolves it to the sequence in force then.
 */
export function SequenceControls({ seq, latest, asOf, asOfError, onChange, onAsOf }: {
  seq: number;
  latest: number;
  asOf: string | null;
  asOfError: string | null;
  onChange: (seq: number | null) => void;
  onAsOf: (asOf: string | null) => void;
}) {
  const [slider, setSlider] = useState(seq);
  useEffect(() => setSlider(seq), [seq]);

  return (
    <div className="flex flex-wrap items-center gap-x-6 gap-y-2" data-testid="sequence-controls">
      <SequenceInput value={seq} latest={latest} param="seq" onChange={onChange} testId="workspace-seq" />
      <label className="flex min-w-64 flex-1 items-center gap-2 text-[12px] text-muted">
        <span className="font-mono text-faint">#0</span>
        <input
          type="range"
          min={0}
          max={latest}
          value={slider}
          aria-label="Sequence slider"
          data-testid="workspace-slider"
          onChange={(e) => setSlider(Number(e.target.value))}
          onPointerUp={() => slider !== seq && onChange(slider === latest ? null : slider)}
          onKeyUp={() => slider !== seq && onChange(slider === latest ? null : slider)}
          className="flex-1 accent-zinc-900"
        />
        <span className="font-mono text-faint">#{latest}</span>
      </label>
      <UrlForm fields={['as_of']} drop={['seq']} onSubmit={(values) => onAsOf(formText(values, 'as_of'))} className="flex shrink-0 items-center gap-1.5 text-[12px] text-muted">
        <label htmlFor="as-of">As of (UTC)</label>
        {/* A text field, not datetime-local: that one shows the browser's local, often 12-hour, format under a UTC label. */}
        <input
          key={asOf ?? ''}
          id="as-of"
          name="as_of"
          type="text"
          inputMode="numeric"
          autoComplete="off"
          spellCheck={false}
          placeholder={AS_OF_FORMAT}
          title={`A UTC date and time, ${AS_OF_FORMAT} (e.g. 2026-03-04 14:05)`}
          aria-describedby="as-of-format"
          defaultValue={asOf ?? ''}
          data-testid="workspace-as-of"
          className="h-7 w-40 shrink-0 rounded-md border border-line bg-white px-2 font-mono text-[12px] text-ink shadow-xs placeholder:text-faint"
        />
        <span id="as-of-format" className="sr-only">
          UTC, {AS_OF_FORMAT}
        </span>
        <button type="submit" className="h-7 rounded-md border border-line bg-white px-2 font-medium text-ink shadow-xs hover:bg-zinc-50" data-testid="workspace-as-of-go">
          Go
        </button>
        {asOfError && (
          <span className="text-delete" data-testid="workspace-as-of-error">
            {asOfError}
          </span>
        )}
      </UrlForm>
    </div>
  );
}
