import { WorkspaceNotFound } from '@/components/workspace/WorkspaceNotFound';

export default function NotFound() {
  return <WorkspaceNotFound />;
}
