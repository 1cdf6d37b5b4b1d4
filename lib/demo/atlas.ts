/**
 * atlas: an OpenClaw agent in the Memory v4.1 tiered layout, four weeks of life. Each scenario
 * day has a morning and usually an evening sync; special days plant the searchable facts
 * (gateway address change, reversed decision, archived event token, hostile quoted markup),
 * weekly reviews add lessons, re-rank MEMORY.md and archive old episodic notes by the TTL rule.
 */
import path from 'node:path';
import { uuidV5 } from '@/lib/core/uuid';
import { NS } from '@/lib/core/ids';
import {
  ARCHIVE_SCRIPT, CLOSURE_SIGNALS, EPISODIC_TTL_DAYS, EVENT_TOKEN_NOTE, HEALTH_SCRIPT, IDENTITY_MD, LESSONS, QUEUE_DECISION,
  QUEUE_REVERSAL, ROUTINE_ENTRIES, SOUL_MD, SUSPICIOUS_PAGE_NOTE, archivePathFor, gatewaySection, renderTiered, upsertSection,
  type Section,
} from './atlas-content';
import { DEMO_DAYS, LAST_DAY_SYNC_HOUR } from './clock';
import { ATLAS_FILES } from './facts';
import type { LifeContext } from './life';
import { scriptedWorkspace, type ScriptedWorkspace } from './workspace';

/** Days without any sync (the agent was idle). */
const QUIET_DAYS = new Set([6, 10, 13, 20, 24]);
/** Days with a morning sync only. */
const MORNING_ONLY_DAYS = new Set([2, 15, 22, DEMO_DAYS - 1]);
const REVIEW_DAYS = new Set([7, 14, 21]);

type Slot = 'am' | 'pm';

interface AtlasState {
  hot: Section[];
  semantic: Record<'infrastructure' | 'preferences' | 'projects' | 'decisions', Section[]>;
  lessons: Section[];
  buffer: string[];
  bufferCreated: string;
  lessonsAdded: number;
  episodicDays: Set<number>;
}

export async function liveAtlas(ctx: LifeContext): Promise<void> {
  const ws = scriptedWorkspace(path.join(ctx.workspacesDir, 'atlas'), ctx.clock.now);
  const state = initialState(ctx);
  for (let d = 0; d < DEMO_DAYS; d++) {
    if (QUIET_DAYS.has(d)) continue;
    const slots: Slot[] = MORNING_ONLY_DAYS.has(d) ? ['am'] : ['am', 'pm'];
    for (const slot of slots) {
      // The last day's sync stays early so "today" never holds a sync from the future.
      const hour = slot === 'am' ? (d === DEMO_DAYS - 1 ? LAST_DAY_SYNC_HOUR - 1 : ctx.prng.int(8, 9)) : ctx.prng.int(18, 21);
      const syncAt = ctx.calendar.at(d, hour, ctx.prng.int(0, 50));
      ctx.clock.set(new Date(syncAt.getTime() - ctx.prng.int(2, 9) * 60_000));
      if (d === 0 && slot === 'am') await writeStaticFiles(ws);
      await liveSlot({ ctx, ws, state, d, slot });
      await writeTieredFiles(ws, state, ctx);
      await ctx.driver.sync({ at: syncAt, runtime: 'openclaw', workspace: ws.root });
    }
  }
}

function initialState(ctx: LifeContext): AtlasState {
  const verified = ctx.calendar.date(0);
  return {
    hot: [
      { heading: 'Now', body: 'Focus: queue-service MVP for the audit pipeline. Homelab is stable.' },
      { heading: 'Where things live', body: '- Infra facts → memory/semantic/infrastructure.md\n- Decisions and why → memory/semantic/decisions.md\n- Lessons → memory/procedural/lessons-learned.md' },
      { heading: 'Active projects', body: '- queue-service: job queue for the audit pipeline\n- homelab: gateway, backups, matrix\n- audit-skills: review bot skills' },
      { heading: 'Open questions', body: '- Is the NUC gateway worth replacing before summer?\n- Does the audit pipeline need exactly-once?' },
    ],
    semantic: {
      infrastructure: [
        { heading: 'Gateway', body: gatewaySection(1, verified) },
        { heading: 'Docker host', body: 'atlas-01 at 10.20.0.40: caddy, synapse, coturn, qdrant, uptime-kuma.' },
        { heading: 'Tailscale', body: 'Tailnet atlas-home; exit node atlas-01; auth key rotates every 90 days.' },
      ],
      preferences: [
        { heading: 'Style', body: 'Short answers, commands in code blocks, no emoji.' },
        { heading: 'Rules', body: 'Ask before anything that restarts the gateway. Never store credentials in notes.' },
      ],
      projects: [
        { heading: 'queue-service', body: 'Job queue for the audit pipeline. Owner: the user; atlas writes tests and runbooks.' },
        { heading: 'audit-skills', body: 'Skills for the review bot. Waiting on a smaller PR.' },
      ],
      decisions: [
        { heading: 'Backups', body: 'restic to the NAS nightly, weekly copy to B2. Why: cheap, verified restores.' },
      ],
    },
    lessons: [LESSONS[0]!],
    buffer: ['- [ ] set up memory v4.1 layout'],
    bufferCreated: stamp(ctx),
    lessonsAdded: 1,
    episodicDays: new Set(),
  };
}

function stamp(ctx: LifeContext): string {
  return ctx.clock.now().toISOString().replace(/\.\d{3}Z$/, '+00:00');
}

async function writeStaticFiles(ws: ScriptedWorkspace): Promise<void> {
  await ws.write('.alf-agent-id', uuidV5(NS.alf, 'lineage-demo:atlas'));
  await ws.write('IDENTITY.md', IDENTITY_MD);
  await ws.write('SOUL.md', SOUL_MD);
  await ws.write('memory/scripts/archive-old-episodic.sh', ARCHIVE_SCRIPT);
  await ws.write('memory/scripts/health-check.sh', HEALTH_SCRIPT);
}

async function writeTieredFiles(ws: ScriptedWorkspace, state: AtlasState, ctx: LifeContext): Promise<void> {
  await ws.writeIfChanged('MEMORY.md', renderTiered('MEMORY.md — hot context', ['memory', 'workflow'], state.hot));
  const tags = { infrastructure: ['networking', 'gateway', 'docker', 'tailscale'], preferences: ['rules', 'style'], projects: ['audit', 'skills'], decisions: ['review', 'backup'] };
  for (const name of ['infrastructure', 'preferences', 'projects', 'decisions'] as const) {
    const title = name[0]!.toUpperCase() + name.slice(1);
    await ws.writeIfChanged(`memory/semantic/${name}.md`, renderTiered(title, tags[name], state.semantic[name]));
  }
  await ws.writeIfChanged('memory/procedural/lessons-learned.md', renderTiered('Lessons learned', ['postmortem', 'fixes'], state.lessons));
  const buffer = `# Working Buffer\ncreated: ${state.bufferCreated}\nlast_active: ${stamp(ctx)}\n\n## Active Task:\n${state.buffer.join('\n')}\n`;
  await ws.writeIfChanged('memory/working-buffer.md', buffer);
}

const episodicRel = (ctx: LifeContext, d: number): string => `memory/episodic/${ctx.calendar.date(d)}.md`;

/** Appends one `## ` entry to day d's episodic note (creating it with its header). */
async function logEpisode(args: { ctx: LifeContext; ws: ScriptedWorkspace; state: AtlasState; d: number; heading: string; body: string }): Promise<void> {
  const { ctx, ws, state, d } = args;
  const rel = episodicRel(ctx, d);
  if (!state.episodicDays.has(d)) {
    state.episodicDays.add(d);
    await ws.write(rel, `# ${ctx.calendar.date(d)}\n#tags: tasks\n`);
  }
  await ws.append(rel, `\n## ${args.heading}\n${args.body}\n`);
}

const hhmm = (ctx: LifeContext): string => ctx.clock.now().toISOString().slice(11, 16);

async function liveSlot(args: { ctx: LifeContext; ws: ScriptedWorkspace; state: AtlasState; d: number; slot: Slot }): Promise<void> {
  const { ctx, ws, state, d, slot } = args;
  const [heading, text] = ctx.prng.pick(ROUTINE_ENTRIES);
  const decisions = await specialEvents(args);
  await logEpisode({ ...args, heading, body: `- ${hhmm(ctx)} ${text}` });
  state.buffer.push(`- [ ] ${heading.toLowerCase()}: follow up (${ctx.calendar.date(d)} ${slot})`);
  if (slot === 'pm') {
    const closure = `\nUpdated: ${ctx.calendar.date(d)}\nDecisions: ${decisions.length > 0 ? decisions.join('; ') : 'none'}\nSignal: ${ctx.prng.pick(CLOSURE_SIGNALS)}\nOpen: ${state.buffer.length > 3 ? 'buffer has open items' : 'none'}\n`;
    await ws.append(episodicRel(ctx, d), closure);
  }
  if (state.buffer.length >= 8 || (slot === 'pm' && d % 6 === 5)) await rotateBuffer(args);
}

/** v4.1 buffer rotation: the buffer is appended to today's episodic note and starts afresh. */
async function rotateBuffer(args: { ctx: LifeContext; ws: ScriptedWorkspace; state: AtlasState; d: number }): Promise<void> {
  const { ctx, ws, state, d } = args;
  const rotated = `\n# Working Buffer (rotated ${hhmm(ctx)})\n\n## Active Task (rotated)\n${state.buffer.join('\n')}\n`;
  await ws.append(episodicRel(ctx, d), rotated);
  state.buffer = [];
  state.bufferCreated = stamp(ctx);
}

/** The scripted happenings of one slot; returns what was decided (for the closure block). */
async function specialEvents(args: { ctx: LifeContext; ws: ScriptedWorkspace; state: AtlasState; d: number; slot: Slot }): Promise<string[]> {
  const { ctx, ws, state, d, slot } = args;
  const key = `${d}${slot}`;
  const log = (heading: string, body: string) => logEpisode({ ...args, heading, body });
  const infra = state.semantic.infrastructure;
  const decisions: string[] = [];
  if (d === ATLAS_FILES.eventTokenDay && slot === 'am') await log('Webhook replay', EVENT_TOKEN_NOTE);
  if (d === ATLAS_FILES.decisionDay && slot === 'am') {
    upsertSection(state.semantic.decisions, 'Queue backend', QUEUE_DECISION);
    decisions.push('queue on Postgres');
  }
  if (key === '4am') await ws.write('memory/scratch.md', '# Scratch\nTry: pg_notify instead of polling? Ask about the NAS fan noise.\n');
  if (key === '5pm') upsertSection(infra, 'Gateway', gatewaySection(2, ctx.calendar.date(d)));
  if (key === '8pm') upsertSection(state.semantic.decisions, 'Monitoring', 'uptime-kuma for everything user-facing; no Prometheus until something needs it.');
  if (d === ATLAS_FILES.xssDay && slot === 'pm') await log('Suspicious page', SUSPICIOUS_PAGE_NOTE);
  if (key === '11am') await ws.remove('memory/scratch.md');
  if (d === ATLAS_FILES.gatewaySwapDay && slot === 'pm') {
    upsertSection(infra, 'Gateway', gatewaySection(3, ctx.calendar.date(d)));
    upsertSection(state.hot, 'Now', 'Focus: queue-service backfill. The new gateway box is live; watch DHCP leases this week.');
    await log('Gateway swap', '- Cut the LAN over to the new gateway box; infrastructure.md updated. No DHCP or DNS changes.');
    decisions.push('retire the NUC gateway');
  }
  if (d === ATLAS_FILES.reversalDay && slot === 'pm') {
    upsertSection(state.semantic.decisions, 'Queue backend', QUEUE_REVERSAL);
    upsertSection(state.semantic.projects, 'queue-service', 'Job queue for the audit pipeline, moving to Redis Streams (consumer groups). Backfill paused until the switch.');
    upsertSection(state.hot, 'Now', 'Focus: move queue-service to Redis Streams, then resume the backfill.');
    decisions.push('queue moves to Redis Streams');
  }
  if (key === '19am') upsertSection(infra, 'Gateway', gatewaySection(4, ctx.calendar.date(d)));
  if (key === '23pm') upsertSection(state.semantic.preferences, 'Style', 'Short answers, commands in code blocks, no emoji. One summary message at the end of the day.');
  if (key === '26pm') addLesson(state);
  if (REVIEW_DAYS.has(d) && slot === 'am') await weeklyReview(args);
  return decisions;
}

function addLesson(state: AtlasState): void {
  const lesson = LESSONS[state.lessonsAdded % LESSONS.length]!;
  state.lessons.push({ ...lesson });
  state.lessonsAdded++;
}

/** Weekly review: a lesson, MEMORY.md re-ranked, open questions refreshed, episodic TTL archival. */
async function weeklyReview(args: { ctx: LifeContext; ws: ScriptedWorkspace; state: AtlasState; d: number }): Promise<void> {
  const { ctx, ws, state, d } = args;
  addLesson(state);
  // Re-rank: "Now" stays on top, the rest rotate as their relevance shifts.
  const [now, ...rest] = state.hot;
  state.hot = [now!, ...rest.slice(1), rest[0]!];
  if (d === 14) upsertSection(state.hot, 'Open questions', '- Does the audit pipeline need exactly-once?\n- Is Postgres still right for the queue at backfill volume?');
  for (const old of [...state.episodicDays].sort((a, b) => a - b)) {
    if (d - old <= EPISODIC_TTL_DAYS) continue;
    await ws.move(episodicRel(ctx, old), archivePathFor(episodicRel(ctx, old)));
    state.episodicDays.delete(old);
  }
  await logEpisode({ ...args, heading: 'Weekly review', body: `- ${hhmm(ctx)} lessons and decisions extracted; episodic notes older than ${EPISODIC_TTL_DAYS} days archived` });
}
