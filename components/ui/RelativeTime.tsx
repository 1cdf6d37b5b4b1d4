'use client';

import { useEffect, useState } from 'react';
import { formatDateTime, relativeTime } from '@/lib/ui/format';

/** "3 hours ago" with the exact UTC time in the title; re-renders every minute. */
export function RelativeTime({ iso }: { iso: string }) {
  const [now, setNow] = useState(() => new Date());
  useEffect(() => {
    const timer = setInterval(() => setNow(new Date()), 60_000);
    return () => clearInterval(timer);
  }, []);
  return (
    <time dateTime={iso} title={formatDateTime(iso)} suppressHydrationWarning>
      {relativeTime(iso, now)}
    </time>
  );
}
