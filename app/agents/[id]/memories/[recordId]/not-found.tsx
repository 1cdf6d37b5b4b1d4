import { MemoryNotFound } from '@/components/lineage/MemoryNotFound';

export default function NotFound() {
  return <MemoryNotFound />;
}
