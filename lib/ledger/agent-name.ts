/**
 * What an agent's name may be, on every door that registers one (the protocol's POST /agents, a
 * local sync, both storage backends): a display name of one line. The contract says only "string"
 * (CONTRACT §1.2 #1, the manifest's `agent.name`: "Display name of the agent"); the reference
 * client sends the runtime's agent name or the workspace directory's (at most 255 bytes), so a
 * blank name, a line break or a control character is never one it means, and a page of text is not
 * a name. Such names were stored and then shown as an empty row, split over lines, or at length.
 */

/** The longest name accepted, in characters (Unicode code points). */
export const MAX_AGENT_NAME_CHARS = 256;

/** The rule, as every refusal states it. */
export const AGENT_NAME_RULE =
  `a name must be 1 to ${MAX_AGENT_NAME_CHARS} characters on one line, at least one of them visible, with no control characters (tab, line break, U+0000–U+001F, U+007F–U+009F, U+2028, U+2029)`;

/** C0 and C1 controls, DEL, and the Unicode line and paragraph separators. */
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/u;
/** Characters that show nothing: white space, format characters (zero-width, bidi marks), controls. */
const INVISIBLE = /^[\p{White_Space}\p{Cf}\p{Cc}]*$/u;

const hex = (ch: string) => `U+${ch.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`;

/** What is wrong with one line of text: a control character in it, or its length; null when neither. */
function lineProblem(what: string, text: string, rule: string): string | null {
  const control = CONTROL.exec(text);
  if (control) return `${what} holds the control character ${hex(control[0])} at character ${[...text.slice(0, control.index)].length + 1}: ${rule}`;
  const length = [...text].length;
  if (length > MAX_AGENT_NAME_CHARS) return `${what} is ${length} characters long: ${rule}`;
  return null;
}

/** Why `name` cannot be an agent's name, or null when it can. */
export function agentNameProblem(name: unknown): string | null {
  if (typeof name !== 'string') return `agent name must be a string: ${AGENT_NAME_RULE}`;
  if (INVISIBLE.test(name)) return `agent name is ${name.length === 0 ? 'empty' : 'blank (nothing in it is visible)'}: ${AGENT_NAME_RULE}`;
  return lineProblem('agent name', name, AGENT_NAME_RULE);
}

/** The rule of an agent's `source_runtime` (`openclaw`, `zeroclaw`, `hermes`, or another runtime's name). */
export const AGENT_RUNTIME_RULE = `a source_runtime must be at most ${MAX_AGENT_NAME_CHARS} characters on one line, with no control characters`;

/** Why `runtime` cannot be an agent's `source_runtime`, or null when it can (none at all can). */
export function agentRuntimeProblem(runtime: string | null): string | null {
  return runtime === null ? null : lineProblem('agent source_runtime', runtime, AGENT_RUNTIME_RULE);
}

/**
 * The name a sync registers for the name its runtime gives the agent (an IDENTITY.md `Name:` line, a
 * directory's name): that name when the rule takes it; otherwise its control characters made spaces,
 * each run of white space one space, trimmed and cut to the longest name; `fallback` when nothing
 * visible is left. A workspace is not refused its sync over its display name, and the archive's
 * manifest keeps the name as the runtime gave it (only the registration is made readable).
 */
export function registrableName(name: string, fallback: string): string {
  if (agentNameProblem(name) === null) return name;
  const cleaned = name.replace(new RegExp(CONTROL.source, 'gu'), ' ').replace(/\s+/gu, ' ').trim();
  const cut = [...cleaned].slice(0, MAX_AGENT_NAME_CHARS).join('').trim();
  return agentNameProblem(cut) === null ? cut : fallback;
}
