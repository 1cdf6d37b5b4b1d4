import { Suspense } from 'react';
import { SearchView } from '@/components/search/SearchView';
import { LoadingRows } from '@/components/ui/States';

export const metadata = { title: 'Search' };

export default function SearchPage() {
  return (
    <Suspense fallback={<LoadingRows rows={5} />}>
      <SearchView />
    </Suspense>
  );
}
