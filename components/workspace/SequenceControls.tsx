'use client';

import { useQueryClient } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { api } from '@/lib/ui/api-client';
import { queryKeys } from '@/lib/ui/query-keys';
import { SequenceInput } from '../agent/SequenceInput';

/** Pick the sequence by number, by slider, or as of a date ("the workspace as it was then"). */
export function SequenceControls({ agentId, seq, latest, onChange }: {
  agentId: string;
  seq: number;
  latest: number;
  onChange: (seq: number | null, options?: { replace?: boolean }) => void;
}) {
  const client = useQueryClient();
  const [slider, setSlider] = useState(seq);
  const [asOf, setAsOf] = useState('');
  const [asOfError, setAsOfError] = useState<string | null>(null);
  useEffect(() => setSlider(seq), [seq]);

  const goAsOf = async () => {
    if (!asOf) return;
    setAsOfError(null);
    const time = new Date(`${asOf}Z`).toISOString();
    try {
      const found = await client.fetchQuery({ queryKey: queryKeys.sequenceAt(agentId, time), queryFn: ({ signal }) => api.sequenceAt(agentId, time, signal) });
      if (found) onChange(found.sequence === latest ? null : found.sequence);
      else setAsOfError('no sync yet at that time');
    } catch (error) {
      setAsOfError(error instanceof Error ? error.message : String(error));
    }
  };

  return (
    <div className="flex flex-wrap items-center gap-x-6 gap-y-2" data-testid="sequence-controls">
      <SequenceInput value={seq} latest={latest} onChange={(s) => onChange(s)} testId="workspace-seq" />
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
      <form
        className="flex items-center gap-1.5 text-[12px] text-muted"
        onSubmit={(e) => {
          e.preventDefault();
          void goAsOf();
        }}
      >
        <label htmlFor="as-of">As of (UTC)</label>
        <input
          id="as-of"
          type="datetime-local"
          value={asOf}
          onChange={(e) => setAsOf(e.target.value)}
          data-testid="workspace-as-of"
          className="h-7 rounded-md border border-line bg-white px-2 font-mono text-[12px] text-ink shadow-xs"
        />
        <button type="submit" className="h-7 rounded-md border border-line bg-white px-2 font-medium text-ink shadow-xs hover:bg-zinc-50" data-testid="workspace-as-of-go">
          Go
        </button>
        {asOfError && <span className="text-delete">{asOfError}</span>}
      </form>
    </div>
  );
}
