/**
 * scout and ledger-bot: two ZeroClaw agents sharing one `brain.db` (created from the adapter's own
 * DDL, in WAL mode, held open like a running runtime). Each works on its own rows with plain SQL —
 * inserts, in-place edits, deletes — and is synced by alias, about fifteen times over four weeks.
 */
import path from 'node:path';
import { createBrainDb } from '@/lib/adapters/zeroclaw/schema';
import type { Db } from '@/lib/adapters/zeroclaw/sqlite-io';
import { NS } from '@/lib/core/ids';
import { uuidV5 } from '@/lib/core/uuid';
import { DEMO_DAYS, LAST_DAY_SYNC_HOUR } from './clock';
import { DEMO_AGENTS } from './facts';
import type { LifeContext } from './life';
import { scriptedWorkspace } from './workspace';
import { LEDGER_BOT_SCRIPT, SCOUT_SCRIPT, type BrainOp, type ZeroclawStep } from './zeroclaw-script';

interface ZeroclawAgentLife {
  alias: string;
  nativeId: string;
  /** Hour band of its syncs (scout works days, ledger-bot runs at dawn). */
  hours: readonly [number, number];
  script: readonly ZeroclawStep[];
}

export async function liveZeroclaw(ctx: LifeContext): Promise<void> {
  const ws = scriptedWorkspace(path.join(ctx.workspacesDir, 'zeroclaw'), ctx.clock.now);
  ctx.clock.set(ctx.calendar.at(0, 6, 0));
  await ws.write('.alf-agent-id', uuidV5(NS.alf, 'lineage-demo:zeroclaw'));
  await ws.write('SOUL.md', '# SOUL.md\nTwo agents, one brain.db: scout researches, ledger-bot keeps the books.\n');
  const lives: ZeroclawAgentLife[] = [
    { alias: DEMO_AGENTS.scout, nativeId: uuidV5(NS.alf, 'lineage-demo:zeroclaw-agent:scout'), hours: [10, 16], script: SCOUT_SCRIPT },
    { alias: DEMO_AGENTS.ledgerBot, nativeId: uuidV5(NS.alf, 'lineage-demo:zeroclaw-agent:ledger-bot'), hours: [5, 6], script: LEDGER_BOT_SCRIPT },
  ];
  const db = await createBrainDb(path.join(ws.root, 'memory', 'brain.db'));
  try {
    db.pragma('journal_mode = WAL');
    db.prepare('INSERT INTO schema_version (component, version, applied_at) VALUES (?, ?, ?)').run('memory', 3, ctx.clock.now().toISOString());
    // scout is registered first, so it owns the workspace's `.alf-agent-id`.
    lives.forEach((life, i) => {
      db.prepare('INSERT INTO agents (id, alias, created_at) VALUES (?, ?, ?)').run(life.nativeId, life.alias, ctx.calendar.at(0, 6, i).toISOString());
    });
    for (const { life, step, at } of timeline(ctx, lives)) {
      ctx.clock.set(new Date(at.getTime() - ctx.prng.int(5, 40) * 60_000));
      applyOps(db, life, step.ops, ctx.clock.now().toISOString());
      await ctx.driver.sync({ at, runtime: 'zeroclaw', workspace: ws.root, runtimeAgent: life.alias });
    }
  } finally {
    db.close();
  }
}

/** Both agents' steps in time order (they share the database, so order matters). */
function timeline(ctx: LifeContext, lives: ZeroclawAgentLife[]): { life: ZeroclawAgentLife; step: ZeroclawStep; at: Date }[] {
  const events = lives.flatMap((life) =>
    life.script.map((step) => {
      // Nothing syncs later than early morning on the last day, so "today" holds no future syncs.
      const [from, to] = step.day === DEMO_DAYS - 1 ? [Math.min(life.hours[0], LAST_DAY_SYNC_HOUR - 1), Math.min(life.hours[1], LAST_DAY_SYNC_HOUR - 1)] : life.hours;
      return { life, step, at: ctx.calendar.at(step.day, ctx.prng.int(from, to), ctx.prng.int(0, 59)) };
    }),
  );
  return events.sort((a, b) => a.at.getTime() - b.at.getTime());
}

/** The runtime's own writes: one transaction of inserts, edits and deletes on this agent's rows. */
function applyOps(db: Db, life: ZeroclawAgentLife, ops: readonly BrainOp[], now: string): void {
  const insert = db.prepare(`INSERT INTO memories (id, key, content, category, embedding, created_at, updated_at, session_id, namespace, importance, superseded_by, agent_id)
    VALUES (@id, @key, @content, @category, NULL, @now, @now, @session, 'default', @importance, NULL, @agent)`);
  const update = db.prepare('UPDATE memories SET content = @content, updated_at = @now WHERE agent_id = @agent AND key = @key');
  const remove = db.prepare('DELETE FROM memories WHERE agent_id = @agent AND key = @key');
  db.transaction(() => {
    for (const op of ops) {
      const base = { agent: life.nativeId, key: op.key, now };
      const changed = op.op === 'insert'
        ? insert.run({
          ...base, id: uuidV5(NS.alf, `lineage-demo:${life.alias}:${op.key}`), content: op.content, category: op.category ?? 'core',
          session: op.session ?? null, importance: op.importance ?? 0.5,
        }).changes
        : op.op === 'update' ? update.run({ ...base, content: op.content }).changes : remove.run(base).changes;
      if (changed !== 1) throw new Error(`demo script: ${op.op} of ${life.alias}/${op.key} touched ${changed} rows`);
    }
  })();
}
