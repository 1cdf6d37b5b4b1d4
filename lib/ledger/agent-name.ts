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

/** Why `name` cannot be an agent's name, or null when it can. */
export function agentNameProblem(name: unknown): string | null {
  if (typeof name !== 'string') return `agent name must be a string: ${AGENT_NAME_RULE}`;
  if (INVISIBLE.test(name)) return `agent name is ${name.length === 0 ? 'empty' : 'blank (nothing in it is visible)'}: ${AGENT_NAME_RULE}`;
  const control = CONTROL.exec(name);
  if (control) return `agent name holds the control character ${hex(control[0])} at character ${[...name.slice(0, control.index)].length + 1}: ${AGENT_NAME_RULE}`;
  const length = [...name].length;
  if (length > MAX_AGENT_NAME_CHARS) return `agent name is ${length} characters long: ${AGENT_NAME_RULE}`;
  return null;
}
