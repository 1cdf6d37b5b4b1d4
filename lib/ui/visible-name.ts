/**
 * Untrusted names (agent names, file names) as text that cannot hide or reorder what is around it:
 * the characters that reorder or hide text, and a name with each written as `[U+XXXX]`. The one
 * list SafeName badges (components/ui/SafeName.tsx) and the fleet's filter matches by (fleet.ts).
 */

/** Characters that change how text around them reads, or that show nothing. */
export const HIDDEN = /[\u0000-\u001F\u007F-\u009F\u00AD\u034F\u061C\u115F\u1160\u17B4\u17B5\u180B-\u180F\u200B-\u200F\u202A-\u202E\u2060-\u206F\u3164\uFE00-\uFE0F\uFEFF\uFFA0\uFFF0-\uFFFB]|\uDB40[\uDC00-\uDFFF]/gu;

/** `U+XXXX` of a character's code point. */
export const codeOf = (ch: string): string => `U+${ch.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`;

/** The name with every hidden character written as `[U+XXXX]` (for titles, tab titles, attributes). */
export function visibleName(name: string): string {
  return name.replace(HIDDEN, (ch) => `[${codeOf(ch)}]`);
}
