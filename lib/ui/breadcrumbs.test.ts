import { describe, expect, it } from 'vitest';
import { agentPageCrumbs } from './breadcrumbs';

const ID = '4f2f00d8-6303-53c6-a641-9d0c8a84051c';
const RECORD = '211e6477-36c3-5a20-bf75-5652eed020ac';

describe('agentPageCrumbs', () => {
  it('names the sequence, memory and workspace pages, under a link to their tab', () => {
    expect(agentPageCrumbs(`/agents/${ID}/sequences/7`, ID)).toEqual([
      { label: 'Timeline', href: `/agents/${ID}`, testId: 'crumb-timeline' },
      { label: 'Sequence #7', testId: 'crumb-page' },
    ]);
    expect(agentPageCrumbs(`/agents/${ID}/memories/${RECORD}`, ID)).toEqual([
      { label: 'Memories', href: `/agents/${ID}?tab=memories`, testId: 'crumb-memories' },
      { label: 'Memory 211e6477', testId: 'crumb-page' },
    ]);
    expect(agentPageCrumbs(`/agents/${ID}/workspace`, ID)).toEqual([{ label: 'Workspace', testId: 'crumb-page' }]);
  });

  it('adds nothing on the agent page itself', () => {
    expect(agentPageCrumbs(`/agents/${ID}`, ID)).toEqual([]);
  });
});
