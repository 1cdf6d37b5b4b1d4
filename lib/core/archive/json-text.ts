import { isUtf8 } from 'node:buffer';
import { isJsonObject, type JsonObject } from '../json';
import { ArchiveError } from './types';

const strictUtf8 = new TextDecoder('utf-8', { fatal: true });

const NOT_BLANK = /\S/;

/** One non-blank line of a JSONL file, 1-based line number, and where its bytes lie. */
export interface JsonLine {
  line: number;
  text: string;
  /** Byte range of `text` in the file (`text` is exactly the UTF-8 of those bytes). */
  start: number;
  end: number;
}

const BOM = [0xef, 0xbb, 0xbf] as const;

/**
 * Calls `fn` for each non-blank line of JSONL bytes, with its 1-based number and byte range,
 * without decoding anything. Line lengths are measured first, so one huge line is refused
 * without building a huge string; then the whole file must be strict UTF-8 (checked natively:
 * a fatal TextDecoder does the same several times slower). A leading byte order mark is not part
 * of line 1. Blank means only what `\s` matches; a line holding non-ASCII bytes before any other
 * character is decoded to decide.
 */
export function forEachJsonLineRange(bytes: Uint8Array, file: string, maxLineBytes: number, fn: (line: number, start: number, end: number) => void): void {
  const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const starts: number[] = [];
  let start = buffer[0] === BOM[0] && buffer[1] === BOM[1] && buffer[2] === BOM[2] ? 3 : 0;
  for (let lineNumber = 1; start <= buffer.length; lineNumber++) {
    let end = buffer.indexOf(0x0a, start);
    if (end === -1) end = buffer.length;
    if (end - start > maxLineBytes) {
      throw new ArchiveError('line_too_long', `${file} line ${lineNumber} is longer than ${maxLineBytes} bytes`);
    }
    starts.push(start);
    start = end + 1;
  }
  if (!isUtf8(buffer)) throw new ArchiveError('bad_record', `${file}: not valid UTF-8`);
  for (let index = 0; index < starts.length; index++) {
    const end = index + 1 < starts.length ? starts[index + 1]! - 1 : buffer.length;
    if (!isBlankLine(buffer, starts[index]!, end)) fn(index + 1, starts[index]!, end);
  }
}

/** {@link forEachJsonLineRange} with each line's text. */
export function forEachJsonLine(
  bytes: Uint8Array,
  file: string,
  maxLineBytes: number,
  fn: (line: number, text: string, start: number, end: number) => void,
): void {
  const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  forEachJsonLineRange(buffer, file, maxLineBytes, (line, start, end) => fn(line, buffer.toString('utf8', start, end), start, end));
}

function isBlankLine(bytes: Buffer, start: number, end: number): boolean {
  for (let k = start; k < end; k++) {
    const byte = bytes[k]!;
    if (byte === 0x20 || (byte >= 0x09 && byte <= 0x0d)) continue;
    return byte < 0x80 ? false : !NOT_BLANK.test(bytes.toString('utf8', k, end));
  }
  return true;
}

/** The non-blank lines of JSONL bytes (see {@link forEachJsonLine}). */
export function splitJsonLines(bytes: Uint8Array, file: string, maxLineBytes: number): JsonLine[] {
  const lines: JsonLine[] = [];
  forEachJsonLine(bytes, file, maxLineBytes, (line, text, start, end) => lines.push({ line, text, start, end }));
  return lines;
}

/** Parses JSON text; `undefined` when it is not JSON (JSON itself has no undefined). */
export function tryParseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/**
 * Parses a whole JSON document that must be an object; `code` says which error to raise.
 * `seen`, when given, is handed the document's text and what it parsed to.
 */
export function parseJsonObject(bytes: Uint8Array, file: string, code: 'bad_manifest' | 'bad_record', seen?: (text: string, value: JsonObject) => void): JsonObject {
  let text: string;
  try {
    text = strictUtf8.decode(bytes);
  } catch {
    throw new ArchiveError(code, `${file}: not valid UTF-8`);
  }
  const value = tryParseJson(text);
  if (value === undefined) throw new ArchiveError(code, `${file}: not valid JSON`);
  if (!isJsonObject(value)) throw new ArchiveError(code, `${file}: expected a JSON object`);
  seen?.(text, value);
  return value;
}
