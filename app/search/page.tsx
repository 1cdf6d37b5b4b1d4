import { Suspense } from 'react';
import { SearchView } from '@/components/search/SearchView';
import { LoadingRows } from '@/components/ui/States';
import { searchTitle } from '@/lib/ui/page-title';

export async function generateMetadata({ searchParams }: { searchParams: Promise<{ q?: string | string[] }> }) {
  const { q } = await searchParams;
  return { title: searchTitle(typeof q === 'string' ? q : undefined) };
}

export default function SearchPage() {
  return (
    <Suspense fallback={<LoadingRows rows={5} />}>
      <SearchView />
    </Suspense>
  );
}
