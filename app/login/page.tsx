import { Panel } from '@/components/ui/Panel';

export const metadata = { title: 'Sign in' };
export const dynamic = 'force-dynamic';

const MESSAGES: Record<string, string> = {
  invalid: 'That key was not accepted. Check it, or ask the operator for a key (`lineage keys create`).',
};

/**
 * Sign-in with an API key. The form posts to /login, which the server in front of Next.js answers
 * (lib/server/sign-in.ts): a session cookie and back to `next`, or back here with `?error=`.
 */
export default async function LoginPage({ searchParams }: { searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  const query = await searchParams;
  const one = (v: string | string[] | undefined) => (Array.isArray(v) ? v[0] : v);
  const error = MESSAGES[one(query.error) ?? ''];
  const next = one(query.next) ?? '/';
  return (
    <div className="mx-auto max-w-md space-y-4 pt-10" data-testid="login-page">
      <div>
        <h1 className="text-lg font-semibold tracking-tight">Sign in</h1>
        <p className="text-[13px] text-muted">This dashboard is shared on a network: sign in with your API key to see your agents.</p>
      </div>
      <Panel title="API key">
        <form method="post" action="/login" className="space-y-3" data-testid="login-form">
          <input type="hidden" name="next" value={next} />
          <input
            type="password"
            name="key"
            required
            autoComplete="off"
            placeholder="alf_sk_…"
            aria-label="API key"
            data-testid="login-key"
            className="h-8 w-full rounded-md border border-line bg-white px-2 font-mono text-[12px] shadow-xs"
          />
          {error ? <p className="text-[12px] text-red-700" role="alert" data-testid="login-error">{error}</p> : null}
          {one(query.signed_out) ? <p className="text-[12px] text-muted" data-testid="signed-out">Signed out.</p> : null}
          <button type="submit" className="inline-flex h-7 items-center rounded-md border border-zinc-900 bg-zinc-900 px-2.5 text-[12px] font-medium text-white hover:bg-zinc-800" data-testid="login-submit">
            Sign in
          </button>
        </form>
      </Panel>
    </div>
  );
}
