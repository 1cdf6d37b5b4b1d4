/**
 * How an error message repeats what a caller sent (an id, a name, a path): whole when short, cut
 * when long. A 404 that echoed a 10,000-character id whole made every refusal as large as the
 * request, and a log line of it unreadable; the start of the value and its length say enough.
 */

/** The most characters (UTF-16 code units) of one input an error message repeats. */
export const ECHO_MAX_CHARS = 80;

/**
 * `text` as an error message shows it: unchanged up to `max` characters, else its first `max`
 * (never half of a surrogate pair) followed by `… (N more characters)`.
 */
export function echoInput(text: string, max: number = ECHO_MAX_CHARS): string {
  if (text.length <= max) return text;
  let cut = max;
  const last = text.charCodeAt(cut - 1);
  if (last >= 0xd800 && last <= 0xdbff) cut -= 1;
  const more = text.length - cut;
  return `${text.slice(0, cut)}… (${more} more character${more === 1 ? '' : 's'})`;
}

/**
 * The most characters of a path (a request path, a workspace file's path, a Host) an error repeats:
 * a real route's path holds two UUIDs and more, and a workspace path its folders, past 80.
 */
export const ECHO_MAX_PATH_CHARS = 200;

/** A path as an error message shows it: `echoInput` with room for a real path. */
export function echoPath(text: string): string {
  return echoInput(text, ECHO_MAX_PATH_CHARS);
}
