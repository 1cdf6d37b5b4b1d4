'use client';

import Link from '@/components/ui/Link';
import { useHydrated } from '@/lib/ui/hooks/use-hydrated';
import { useWorkspaceFile } from '@/lib/ui/hooks/use-workspace';
import { FoldedDiff } from './FoldedDiff';

/**
 * A changed file's folded word diff, worked out in the browser from its two texts, fetched from the
 * workspace file API (`seq` immutable, so the browser caches them): the document carries neither the
 * texts (~20 KB a file in the RSC payload) nor the diff (milliseconds of the server's CPU per file).
 * A side that is not UTF-8 text, or cannot be read, leaves the link to the workspace's compare.
 */
export function BrowserDiff({ agentId, path, from, to, href }: { agentId: string; path: string; from: number; to: number; href: string }) {
  const hydrated = useHydrated();
  const before = useWorkspaceFile(agentId, from, path);
  const after = useWorkspaceFile(agentId, to, path);
  if (before.isError || after.isError || before.data?.text === null || after.data?.text === null) {
    return (
      <p className="px-3 py-2 text-[12px] text-muted" data-testid="diff-unavailable">
        Not text, or not readable here: <Link href={href} className="text-accent hover:underline">compare it in the workspace</Link>.
      </p>
    );
  }
  if (!hydrated || before.data === undefined || after.data === undefined) {
    return <p className="px-3 py-2 text-[12px] text-muted" data-testid="diff-pending">Working out the diff…</p>;
  }
  return <FoldedDiff before={before.data.text} after={after.data.text} />;
}
