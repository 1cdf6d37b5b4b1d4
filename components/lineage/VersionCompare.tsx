'use client';

import { useState } from 'react';
import type { LineageVersion } from '@/lib/ui/api-types';
import { diffStats, wordDiff } from '@/lib/ui/diff';
import { formatShortDay } from '@/lib/ui/format';
import { FoldedDiff } from '../compare/FoldedDiff';
import { DiffStatsBadge } from '../memory/WordDiff';
import { Select } from '../ui/Field';

const OP = { create: 'created', update: 'updated', delete: 'deleted', move: 'moved' } as const;

/** A picker's option: "#3 · updated · Nov 2"; a move within one file (a rename: MoveStep, OpBadge) is "renamed". */
export const optionLabel = (v: LineageVersion) => {
  const op = v.op === 'move' && v.from_file != null && v.from_file === v.to_file ? 'renamed' : OP[v.op];
  return `#${v.seq} · ${op} · ${formatShortDay(v.synced_at)}`;
};

/**
 * Any two versions of the memory side by side as one word diff: pick the older and the newer
 * (oldest and newest at first). `versions` are the drawn versions, oldest first (the lineage pages
 * newest first, so the view sorts them by sequence before passing them). Native selects, so it is all keyboard; it folds long unchanged text.
 * Until first opened it draws its summary only: the pickers and the diff (two word diffs of the
 * whole text, and its lines) are drawn from the first opening on and stay (picks kept when it is
 * closed again), so a lineage document does not render them unseen.
 */
export function VersionCompare({ versions }: { versions: LineageVersion[] }) {
  const [opened, setOpened] = useState(false);
  if (versions.length < 2) return null;
  return (
    <details className="rounded-md border border-line bg-white" data-testid="version-compare" onToggle={(e) => { if (e.currentTarget.open) setOpened(true); }}>
      <summary className="cursor-pointer px-3 py-2 text-[13px] font-semibold">Compare two versions</summary>
      {opened && <ComparePicker versions={versions} />}
    </details>
  );
}

/** The open panel: two pickers and the word diff of the picked versions. */
function ComparePicker({ versions }: { versions: LineageVersion[] }) {
  const [picked, setPicked] = useState<[number, number]>([0, versions.length - 1]);
  const [a, b] = picked.map((i) => Math.min(Math.max(i, 0), versions.length - 1)) as [number, number];
  const before = versions[a]!;
  const after = versions[b]!;
  const stats = diffStats(wordDiff(before.content, after.content));
  const options = versions.map((v, i) => <option key={i} value={i}>{optionLabel(v)}</option>);
  return (
    <div className="space-y-2 border-t border-line px-3 py-2">
      <div className="flex flex-wrap items-center gap-3">
        <Select label="From" value={a} onChange={(e) => setPicked([Number(e.currentTarget.value), b])} data-testid="version-compare-from">
          {options}
        </Select>
        <Select label="to" value={b} onChange={(e) => setPicked([a, Number(e.currentTarget.value)])} data-testid="version-compare-to">
          {options}
        </Select>
        <span className="ml-auto">{before.content !== after.content && <DiffStatsBadge {...stats} />}</span>
      </div>
      {before.content === after.content ? (
        <p className="text-[12px] text-muted" data-testid="version-compare-same">The text is the same in #{before.seq} and #{after.seq}.</p>
      ) : (
        <FoldedDiff before={before.content} after={after.content} testId="version-compare-diff" />
      )}
    </div>
  );
}
