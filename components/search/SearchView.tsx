'use client';

import { useAgentNames } from '@/lib/ui/hooks/use-agents';
import { SEARCH_PAGE, useSearch } from '@/lib/ui/hooks/use-search';
import { useUrlState } from '@/lib/ui/hooks/use-url-state';
import { intParam, intParamProblem } from '@/lib/ui/url-params';
import { plural } from '@/lib/ui/format';
import { Button } from '../ui/Button';
import { Select } from '../ui/Field';
import { Panel } from '../ui/Panel';
import { EmptyState, ErrorState, LoadingRows } from '../ui/States';
import { formText, UrlForm } from '../ui/UrlForm';
import { AppearanceRow, FirstAppearance } from './AppearanceCard';
import { OtherAgents } from './OtherAgents';
import { Suggestions } from './Suggestions';
import { AgentOptions, agentLabels } from '@/components/ui/AgentOptions';

/**
 * "When did this fact first appear, and what became of it": `?q=` (and `?agent=`, `?offset=`) in
 * the URL. Words must all be in one version; "quotes" ask for an exact phrase; word* a prefix.
 */
export function SearchView() {
  const url = useUrlState();
  const q = url.get('q') ?? '';
  const agent = url.get('agent');
  const offset = intParam(url.get('offset')) ?? 0;
  const offsetProblem = intParamProblem('offset', url.get('offset'));
  const agents = useAgentNames();
  const names = agentLabels(agents.data ?? []);
  const name = (id: string) => names.get(id) ?? id.slice(0, 8);
  const query = useSearch(q, agent, offset);
  const later = query.data ? query.data.total - 1 : 0;

  return (
    <div className="space-y-4" data-testid="search-page">
      <div>
        <h1 className="text-lg font-semibold tracking-tight">When did this first appear?</h1>
        <p className="text-[13px] text-muted">
          Searches every version of every memory, including ones later moved or deleted. Words are whole words, all in the same
          version (one or two letters are found inside words too); <span className="font-mono">"quotes"</span> find an exact phrase;{' '}
          <span className="font-mono">word*</span> a prefix.
        </p>
      </div>
      <UrlForm
        action="/search"
        fields={['q']}
        drop={['offset']}
        className="flex flex-wrap items-center gap-3"
        onSubmit={(values) => url.set({ q: formText(values, 'q'), offset: null })}
      >
        <input
          name="q"
          key={q}
          defaultValue={q}
          placeholder="A fact, a name, an IP address, an id…"
          aria-label="Search text"
          data-testid="search-input"
          className="h-9 min-w-0 flex-1 basis-full rounded-md border sm:basis-auto border-line bg-white px-3 font-mono text-[13px] shadow-xs focus:border-accent focus:outline-none"
        />
        <Select label="Agent" value={agent ?? ''} onChange={(e) => url.set({ agent: e.target.value || null, offset: null })} data-testid="search-agent">
          <AgentOptions agents={agents.data ?? []} />
        </Select>
        <Button type="submit" variant="primary">
          Search
        </Button>
      </UrlForm>
      {!q ? (
        <Panel>
          <EmptyState title="Type a fact to trace it">
            The answer is the earliest version that contained it: agent, sequence, date and file, then every later appearance.
          </EmptyState>
        </Panel>
      ) : offsetProblem ? (
        <ErrorState error={new Error(offsetProblem)} />
      ) : query.isPending ? (
        <LoadingRows rows={5} label="Searching" />
      ) : query.error ? (
        <ErrorState error={query.error} retry={() => void query.refetch()} />
      ) : !query.data.first ? (
        <Panel>
          <EmptyState title={`“${q}” never appeared`} testId="search-empty">
            No version of any memory{agent ? ' of this agent' : ''} contains {query.data.query.includes(' ') ? 'all of these words' : 'this as a whole word'}.
            <Suggestions suggestions={query.data.suggestions} agent={agent} />
          </EmptyState>
        </Panel>
      ) : (
        <>
          <FirstAppearance first={query.data.first} status={query.data.status} agentName={name(query.data.first.agent_id)} />
          <OtherAgents statuses={query.data.statuses.filter((s) => s.agent_id !== query.data.first?.agent_id)} name={name} />
          <Panel flush title={<span>Later appearances <span className="font-normal text-faint">{later}</span></span>}>
            {query.data.appearances.length === 0 ? (
              <EmptyState title="It appears in no later version" />
            ) : (
              <ol className="divide-y divide-line" data-testid="appearances">
                {query.data.appearances.map((a) => (
                  <AppearanceRow key={`${a.agent_id}-${a.record_id}-${a.sequence}`} appearance={a} agentName={name(a.agent_id)} />
                ))}
              </ol>
            )}
            {later > SEARCH_PAGE && (
              <div className="flex items-center justify-between border-t border-line px-4 py-2 text-[12px] text-muted">
                <span>
                  {offset + 1}–{Math.min(offset + SEARCH_PAGE, later)} of {plural(later, 'later appearance')}
                </span>
                <span className="flex gap-2">
                  <Button disabled={offset === 0} onClick={() => url.set({ offset: Math.max(0, offset - SEARCH_PAGE) || null })}>
                    ← Earlier
                  </Button>
                  <Button disabled={offset + SEARCH_PAGE >= later} onClick={() => url.set({ offset: offset + SEARCH_PAGE })}>
                    Later →
                  </Button>
                </span>
              </div>
            )}
          </Panel>
        </>
      )}
    </div>
  );
}
