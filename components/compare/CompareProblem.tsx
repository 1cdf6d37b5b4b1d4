import { Panel } from '../ui/Panel';
import { CompareForm } from './CompareForm';

/**
 * The compare page when the two sequences asked for cannot be compared: why, in words, and the form to ask again.
 * `prompt`: nothing was asked yet (a bare `/compare`): the message invites, it is no error, and the form holds the
 * values given.
 */
export function CompareProblem({ agentId, latest, message, from = null, to = null, prompt = false }: {
  agentId: string; latest: number | null; message: string; from?: number | null; to?: number | null; prompt?: boolean;
}) {
  return (
    <div className="space-y-4" data-testid="compare-page">
      <h2 className="text-lg font-semibold tracking-tight">Compare two sequences</h2>
      <Panel testId="compare-problem">
        {prompt
          ? <p className="text-[13px] text-muted" data-testid="compare-prompt">{message}</p>
          : <p className="text-[13px] text-ink" role="alert" data-testid="compare-error">{message}</p>}
        {latest !== null && (
          <div className="mt-3">
            <CompareForm agentId={agentId} from={from !== null && from <= latest ? from : null} to={to !== null && to <= latest ? to : null} latest={latest} />
          </div>
        )}
      </Panel>
    </div>
  );
}
