/**
 * The Content-Disposition of a download named after an agent (RFC 6266): `filename` an ASCII
 * fallback every client reads, and `filename*` (RFC 8187, UTF-8, percent-encoded) the name as
 * shown when it is not plain ASCII — `Вега` no longer downloads as `agent-seq3.zip`. Neither can
 * carry a quote, a line break or anything else that would end the header's value.
 */

/** Characters no file name keeps: controls, format characters (bidi overrides, zero-width), line separators, path and shell-reserved ones. */
const UNSAFE = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\\/:*?"<>|]+/gu;

/** A surrogate without its partner (a name can hold one; encodeURIComponent throws on it). */
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

/** RFC 8187 attr-chars are left as they are; everything else is percent-encoded from UTF-8. */
const encodeExtValue = (text: string) => encodeURIComponent(text).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);

/** The agent's name in ASCII letters, digits, dot, dash and underscore (accents dropped), or `agent`. */
export function asciiFileName(name: string): string {
  return name.normalize('NFKD').replace(/[^A-Za-z0-9._-]+/g, '-').replace(/^[-.]+|-+$/g, '') || 'agent';
}

/** The name as shown, with what no file name keeps made `-` (no leading dot: not a hidden file), or `agent`. */
export function visibleFileName(name: string): string {
  return name.replace(LONE_SURROGATE, '\ufffd').normalize('NFC').replace(UNSAFE, '-').replace(/\s+/gu, ' ').trim().replace(/^[-.]+/, '') || 'agent';
}

/** `attachment; filename="<ascii><suffix>"`, plus `filename*` when the visible name differs from its ASCII form. */
export function attachmentDisposition(name: string, suffix: string): string {
  const fallback = `${asciiFileName(name)}${suffix}`;
  const full = `${visibleFileName(name)}${suffix}`;
  return full === fallback ? `attachment; filename="${fallback}"` : `attachment; filename="${fallback}"; filename*=UTF-8''${encodeExtValue(full)}`;
}
