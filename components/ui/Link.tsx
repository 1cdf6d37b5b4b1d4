'use client';

import NextLink from 'next/link';
import { useRouter } from 'next/navigation';
import type { ComponentProps, FocusEvent, MouseEvent, TouchEvent } from 'react';

/**
 * The dashboard's one link: next/link without its automatic prefetch. Next prefetches the RSC
 * payload of every link that scrolls into view; a feed or fleet page holds tens of them, and each
 * prefetch runs that page's server work on the one server thread (the ui-scale bench saw 10–40 per
 * page, queued in front of the page's own data requests). A link is prefetched only on intent:
 * when it is hovered, focused or touched. Every `href` in the app is a string.
 */
export default function Link({ href, onMouseEnter, onFocus, onTouchStart, ...props }: Omit<ComponentProps<typeof NextLink>, 'prefetch' | 'href'> & { href: string }) {
  const router = useRouter();
  const prefetch = () => router.prefetch(href);
  return (
    <NextLink
      {...props}
      href={href}
      prefetch={false}
      onMouseEnter={(e: MouseEvent<HTMLAnchorElement>) => {
        onMouseEnter?.(e);
        prefetch();
      }}
      onFocus={(e: FocusEvent<HTMLAnchorElement>) => {
        onFocus?.(e);
        prefetch();
      }}
      onTouchStart={(e: TouchEvent<HTMLAnchorElement>) => {
        onTouchStart?.(e);
        prefetch();
      }}
    />
  );
}
