/**
 * Every page of the dashboard with real ids from the seed, for the checks that must hold on all of
 * them (accessibility, no sideways scroll). The list is tied to app/**\/page.tsx: a page file that no
 * URL here stands for fails `assertEveryRouteCovered`, so a new page cannot slip past the checks.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { APIRequestContext, Page } from '@playwright/test';
import { FACTS } from './seed/openclaw-life';
import type { SeedManifest } from './seed/seed';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

export interface PageToCheck {
  /** A short name for the report. */
  name: string;
  url: string;
  /** The page file (relative to app/) this URL renders. */
  route: string;
}

/** The routes (relative to app/, without /page.tsx) that have a page file. */
export function appRoutes(): string[] {
  const found: string[] = [];
  const walk = (dir: string) => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const abs = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(abs);
      else if (entry.name === 'page.tsx') found.push(path.relative(path.join(ROOT, 'app'), dir).split(path.sep).join('/'));
    }
  };
  walk(path.join(ROOT, 'app'));
  return found.sort();
}

interface AgentJson { id: string; name: string; runtime: string; latest_sequence: number | null }

async function json<T>(request: APIRequestContext, url: string): Promise<T> {
  const res = await request.get(url);
  if (!res.ok()) throw new Error(`${url} answered ${res.status()}`);
  return (await res.json()) as T;
}

async function firstRecord(request: APIRequestContext, agentId: string): Promise<string> {
  const page = await json<{ items: { record_id: string }[] }>(request, `/api/agents/${agentId}/records?limit=1`);
  const id = page.items[0]?.record_id;
  if (!id) throw new Error(`agent ${agentId} has no live record`);
  return id;
}

/** The seeded agent's archived daily log at the latest sequence: its sections were moved there from another file. */
export function movedFile(seed: SeedManifest): string {
  const file = Object.keys(seed.steps[seed.steps.length - 1]!).find((p) => p.startsWith('memory/archive/'));
  if (!file) throw new Error('the seed has no archived file');
  return file;
}

/** Every page, with the seeded OpenClaw agent's richest states and one agent of each other runtime. */
export async function everyPage(request: APIRequestContext, seed: SeedManifest): Promise<PageToCheck[]> {
  const agents = await json<AgentJson[]>(request, '/api/agents');
  const id = seed.agentId;
  const latest = seed.steps.length - 1;
  const lineageRecord = await firstRecord(request, id);
  const pages: PageToCheck[] = [
    { name: 'fleet', url: '/', route: '' },
    { name: 'timeline', url: `/agents/${id}`, route: 'agents/[id]' },
    { name: 'memories', url: `/agents/${id}?tab=memories`, route: 'agents/[id]' },
    { name: 'changes', url: `/agents/${id}?tab=changes`, route: 'agents/[id]' },
    { name: 'sequence', url: `/agents/${id}/sequences/4`, route: 'agents/[id]/sequences/[seq]' },
    { name: 'sequence 0', url: `/agents/${id}/sequences/0`, route: 'agents/[id]/sequences/[seq]' },
    { name: 'sequence past the latest', url: `/agents/${id}/sequences/${latest + 40}`, route: 'agents/[id]/sequences/[seq]' },
    { name: 'lineage', url: `/agents/${id}/memories/${lineageRecord}`, route: 'agents/[id]/memories/[recordId]' },
    { name: 'workspace', url: `/agents/${id}/workspace?seq=3&file=${FACTS.workspaceFile}`, route: 'agents/[id]/workspace' },
    { name: 'workspace blame', url: `/agents/${id}/workspace?file=${FACTS.workspaceFile}&view=blame`, route: 'agents/[id]/workspace' },
    { name: 'workspace compare', url: `/agents/${id}/workspace?seq=3&file=${FACTS.workspaceFile}&compare=0`, route: 'agents/[id]/workspace' },
    { name: 'workspace, a long file', url: `/agents/${seed.large.agentId}/workspace?file=${seed.large.file}`, route: 'agents/[id]/workspace' },
    { name: 'workspace past the latest', url: `/agents/${id}/workspace?seq=999`, route: 'agents/[id]/workspace' },
    { name: 'search', url: '/search?q=10.42.0', route: 'search' },
    { name: 'search, empty', url: '/search', route: 'search' },
    { name: 'sign in', url: '/login', route: 'login' },
    { name: 'unknown agent', url: '/agents/00000000-0000-0000-0000-000000000000', route: 'agents/[id]' },
    { name: 'unknown page', url: '/no-such-page', route: '' },
  ];
  for (const runtime of ['zeroclaw', 'hermes']) {
    const agent = agents.find((a) => a.runtime === runtime && a.latest_sequence !== null);
    if (!agent) continue;
    const record = await firstRecord(request, agent.id);
    pages.push(
      { name: `${runtime} memories`, url: `/agents/${agent.id}?tab=memories`, route: 'agents/[id]' },
      { name: `${runtime} lineage`, url: `/agents/${agent.id}/memories/${record}`, route: 'agents/[id]/memories/[recordId]' },
      { name: `${runtime} workspace`, url: `/agents/${agent.id}/workspace`, route: 'agents/[id]/workspace' },
    );
  }
  // Pages other work adds: covered here as soon as their file exists.
  const later: PageToCheck[] = [
    { name: 'compare', url: `/agents/${id}/compare?from=0&to=${latest}`, route: 'agents/[id]/compare' },
  ];
  const routes = new Set(appRoutes());
  return [...pages, ...later.filter((p) => routes.has(p.route))];
}

/** Throws naming every page file that no URL of `pages` renders. */
export function assertEveryRouteCovered(pages: PageToCheck[]): void {
  const covered = new Set(pages.map((p) => p.route));
  const missing = appRoutes().filter((r) => !covered.has(r));
  if (missing.length > 0) throw new Error(`no URL in e2e/every-page.ts renders app/${missing.join('/page.tsx, app/')}/page.tsx`);
}

/** Waits until the page has drawn its data (no loading placeholders, no request in flight). */
export async function settle(page: Page): Promise<void> {
  await page.waitForLoadState('networkidle');
  await page.waitForFunction(() => document.querySelectorAll('[data-testid=loading]').length === 0);
}
