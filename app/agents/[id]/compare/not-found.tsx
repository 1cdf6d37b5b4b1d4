import { CompareNotFound } from '@/components/compare/CompareNotFound';

export default function NotFound() {
  return <CompareNotFound />;
}
