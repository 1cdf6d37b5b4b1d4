import Link from '@/components/ui/Link';
import type { ReactNode } from 'react';

/** A page that does not exist: what was asked for, and where to go instead (real pages only). */
export function NotFoundPanel({ title, children, links, testId = 'not-found', fullLoad = false }: {
  title: string;
  children?: ReactNode;
  links: { href: string; label: string; testId?: string }[];
  testId?: string;
  /** Plain links (a full page load): a not-found boundary does not reset when only the query string changes. */
  fullLoad?: boolean;
}) {
  return (
    <div className="mx-auto mt-10 max-w-md rounded-lg border border-line bg-white px-6 py-10 text-center" data-testid={testId}>
      <p className="font-mono text-3xl font-semibold text-faint">404</p>
      <h1 className="mt-2 text-[15px] font-semibold" data-testid="not-found-title">
        {title}
      </h1>
      {children && <div className="mt-1 text-[13px] text-muted">{children}</div>}
      <div className="mt-4 flex flex-wrap justify-center gap-4 text-[13px] font-medium">
        {links.map((link) =>
          fullLoad ? (
            <a key={link.href} href={link.href} className="text-accent hover:underline" data-testid={link.testId}>
              {link.label}
            </a>
          ) : (
            <Link key={link.href} href={link.href} className="text-accent hover:underline" data-testid={link.testId}>
              {link.label}
            </Link>
          ),
        )}
      </div>
    </div>
  );
}
