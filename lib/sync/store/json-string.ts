/**
 * JSON strings in the store's text files (paths, record ids), written and read without JSON's
 * general machinery for the common case: a string of printable ASCII without `"` or `\` is its
 * own JSON string. The others go through JSON as usual.
 */
const PLAIN = /^[\x20\x21\x23-\x5b\x5d-\x7e]*$/;

export function jsonString(text: string): string {
  return PLAIN.test(text) ? `"${text}"` : JSON.stringify(text);
}

/** The string a JSON string literal (as matched: quotes included) holds; undefined when it is not one. */
export function parseJsonString(quoted: string): string | undefined {
  const inner = quoted.slice(1, -1);
  if (PLAIN.test(inner)) return inner;
  const value: unknown = JSON.parse(quoted);
  return typeof value === 'string' ? value : undefined;
}
