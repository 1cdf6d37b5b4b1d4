import { SequenceNotFound } from '@/components/sequence/SequenceNotFound';

export default function NotFound() {
  return <SequenceNotFound />;
}
