import { Fragment } from 'react';
import clsx from 'clsx';
import { SafeName, visibleName } from './SafeName';

/**
 * A file path that may wrap after each `/` (a break opportunity per segment), so a narrow screen
 * shows it on several lines instead of cutting it: the file name — what tells two paths apart —
 * always stays visible. Only a single segment wider than its box breaks inside (globals.css .path-text).
 * Each segment is untrusted text: hidden and reordering characters show as badges (SafeName).
 */
export function PathText({ path, className }: { path: string; className?: string }) {
  const parts = path.split('/');
  return (
    <span className={clsx('path-text font-mono', className)} title={visibleName(path)} data-testid="path-text">
      {parts.map((part, i) => (
        <Fragment key={i}>
          <SafeName name={part} max={255} />
          {i < parts.length - 1 && (
            <>
              /<wbr />
            </>
          )}
        </Fragment>
      ))}
    </span>
  );
}
