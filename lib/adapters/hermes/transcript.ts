import type { JsonObject } from '@/lib/core/json';
import { rustTrimEnd } from '@/lib/core/rust-str';

/**
 * A session's readable transcript: `# <title or id>`, a blank line, `_source: <src>_`,
 * a blank line, then per message `role: content` (blank contents skipped) and
 * `role → tool <name>` for each tool it names (`tool_name`, or the names in
 * `tool_calls`). The structured truth stays in `raw_source_format`.
 */
export function renderTranscript(session: JsonObject, messages: readonly JsonObject[]): string {
  const title = typeof session.title === 'string' && session.title.trim().length > 0 ? session.title : String(session.id);
  const lines = [`# ${title}`, '', `_source: ${sessionSource(session)}_`, ''];
  for (const message of messages) {
    const role = typeof message.role === 'string' ? message.role : '?';
    if (typeof message.content === 'string' && message.content.trim().length > 0) lines.push(`${role}: ${message.content}`);
    for (const tool of toolNames(message)) lines.push(`${role} → tool ${tool}`);
  }
  return rustTrimEnd(lines.join('\n'));
}

/** The session's platform (`source` column), `unknown` when absent. */
export function sessionSource(session: JsonObject): string {
  return typeof session.source === 'string' && session.source.length > 0 ? session.source : 'unknown';
}

function toolNames(message: JsonObject): string[] {
  if (typeof message.tool_name === 'string' && message.tool_name.length > 0) return [message.tool_name];
  if (typeof message.tool_calls !== 'string') return [];
  try {
    const calls: unknown = JSON.parse(message.tool_calls);
    if (!Array.isArray(calls)) return [];
    return calls.flatMap((call: unknown) => {
      const c = call as { name?: unknown; function?: { name?: unknown } } | null;
      const name = c?.function?.name ?? c?.name;
      return typeof name === 'string' && name.length > 0 ? [name] : [];
    });
  } catch {
    return [];
  }
}
