/** The breadcrumb trail of an agent's pages, from the path (the agent's header shows it on all of them). */
import { shortId } from './format';
import { routes } from './routes';

export interface Crumb {
  label: string;
  /** Absent on the current page's crumb. */
  href?: string;
  testId: string;
}

/** The crumbs after "Fleet / <agent>" for a path under `/agents/<id>`: the section it belongs to, then the page. */
export function agentPageCrumbs(pathname: string, agentId: string): Crumb[] {
  const [, section, param] = pathname.split('/').filter(Boolean).slice(1);
  if (section === 'sequences' && param !== undefined) {
    return [
      { label: 'Timeline', href: routes.agent(agentId), testId: 'crumb-timeline' },
      { label: `Sequence #${decodeURIComponent(param)}`, testId: 'crumb-page' },
    ];
  }
  if (section === 'memories' && param !== undefined) {
    return [
      { label: 'Memories', href: routes.agent(agentId, 'memories'), testId: 'crumb-memories' },
      { label: `Memory ${shortId(decodeURIComponent(param))}`, testId: 'crumb-page' },
    ];
  }
  if (section === 'compare') {
    return [
      { label: 'Timeline', href: routes.agent(agentId), testId: 'crumb-timeline' },
      { label: 'Compare', testId: 'crumb-page' },
    ];
  }
  if (section === 'workspace') return [{ label: 'Workspace', testId: 'crumb-page' }];
  return [];
}
