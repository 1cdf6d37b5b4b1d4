import Link from '@/components/ui/Link';

export default function NotFound() {
  return (
    <div className="mx-auto mt-16 max-w-md rounded-lg border border-line bg-white px-6 py-10 text-center" data-testid="not-found">
      <p className="font-mono text-3xl font-semibold text-faint">404</p>
      <h1 className="mt-2 text-[15px] font-semibold">Nothing synced lives here</h1>
      <p className="mt-1 text-[13px] text-muted">The agent, sequence or memory in this address does not exist in this data directory.</p>
      <Link href="/" className="mt-4 inline-block text-[13px] font-medium text-accent hover:underline">
        Back to the fleet
      </Link>
    </div>
  );
}
