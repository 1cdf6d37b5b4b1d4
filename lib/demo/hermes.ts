/**
 * hermes-desk: a Hermes home with chat sessions in `state.db` (created from the adapter's DDL,
 * WAL mode) and curated `§` notes. Sessions end, one stays open and gains messages across syncs;
 * notes are added, re-ordered and one is edited.
 */
import path from 'node:path';
import { STATE_DB_DDL, STATE_DB_SCHEMA_VERSION } from '@/lib/adapters/hermes/schema';
import type { Db } from '@/lib/adapters/zeroclaw/sqlite-io';
import { NS } from '@/lib/core/ids';
import { uuidV5 } from '@/lib/core/uuid';
import Database from 'better-sqlite3';
import { DEMO_AGENTS } from './facts';
import { HERMES_SCRIPT, HERMES_SOUL, type ChatMessage, type SessionOp } from './hermes-script';
import type { LifeContext } from './life';
import { scriptedWorkspace } from './workspace';

export async function liveHermes(ctx: LifeContext): Promise<void> {
  const ws = scriptedWorkspace(path.join(ctx.workspacesDir, DEMO_AGENTS.hermes), ctx.clock.now);
  ctx.clock.set(ctx.calendar.at(0, 8, 0));
  await ws.write('.alf-agent-id', uuidV5(NS.alf, 'lineage-demo:hermes-desk'));
  await ws.write('SOUL.md', HERMES_SOUL);
  await ws.write('config.yaml', 'model: hermes-4-70b\npersonality: desk\n');
  const db = new Database(path.join(ws.root, 'state.db'));
  const sessionIds = new Map<string, string>();
  try {
    db.pragma('journal_mode = WAL');
    db.exec(STATE_DB_DDL);
    db.prepare('INSERT INTO schema_version (version) VALUES (?)').run(STATE_DB_SCHEMA_VERSION);
    for (const step of HERMES_SCRIPT) {
      const at = ctx.calendar.at(step.day, step.hour, ctx.prng.int(0, 50));
      ctx.clock.set(new Date(at.getTime() - ctx.prng.int(3, 9) * 60_000));
      if (step.curated) await ws.write('memories/MEMORY.md', step.curated.join('\n§\n') + '\n');
      if (step.user) await ws.write('memories/USER.md', step.user);
      for (const op of step.sessions ?? []) applySessionOp({ db, op, sessionIds, ctx });
      await ctx.driver.sync({ at, runtime: 'hermes', workspace: ws.root });
    }
  } finally {
    db.close();
  }
}

/** Writes one session change as Hermes does: the session row, its messages, the counters. */
function applySessionOp(args: { db: Db; op: SessionOp; sessionIds: Map<string, string>; ctx: LifeContext }): void {
  const { db, op, sessionIds, ctx } = args;
  const start = ctx.clock.now().getTime() / 1000 - 60 * 6;
  db.transaction(() => {
    let id = sessionIds.get(op.key);
    if (op.op === 'start') {
      const hex = ctx.prng.int(0, 0xffffff).toString(16).padStart(6, '0');
      id = `${new Date(start * 1000).toISOString().slice(0, 19).replace(/[-:]/g, '').replace('T', '_')}_${hex}`;
      sessionIds.set(op.key, id);
      db.prepare('INSERT INTO sessions (id, source, model, started_at, title) VALUES (?, ?, ?, ?, ?)').run(id, op.source, 'hermes-4-70b', start, op.title);
    }
    if (id === undefined) throw new Error(`demo script: session ${op.key} continued before it started`);
    addMessages(db, id, op.messages, start);
    if (op.op === 'start' && op.end) {
      db.prepare("UPDATE sessions SET ended_at = ?, end_reason = 'user_exit' WHERE id = ?").run(start + 60 * 5, id);
    }
  })();
}

function addMessages(db: Db, sessionId: string, messages: readonly ChatMessage[], start: number): void {
  const insert = db.prepare('INSERT INTO messages (session_id, role, content, tool_name, timestamp, token_count) VALUES (?, ?, ?, ?, ?, ?)');
  messages.forEach((m, i) => insert.run(sessionId, m.role, m.content, m.tool ?? null, start + 30 * (i + 1), Math.ceil(m.content.length / 4)));
  db.prepare(`UPDATE sessions SET message_count = message_count + ?, tool_call_count = tool_call_count + ?,
    input_tokens = input_tokens + ?, output_tokens = output_tokens + ? WHERE id = ?`).run(
    messages.length,
    messages.filter((m) => m.role === 'tool').length,
    messages.filter((m) => m.role === 'user').reduce((n, m) => n + Math.ceil(m.content.length / 4), 0),
    messages.filter((m) => m.role === 'assistant').reduce((n, m) => n + Math.ceil(m.content.length / 4), 0),
    sessionId,
  );
}
