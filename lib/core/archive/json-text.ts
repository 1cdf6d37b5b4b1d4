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
 * Decodes UTF-8 strictly; invalid bytes are an error naming the file. Checked first and then
 * decoded by Node's native routines: a fatal TextDecoder does the same several times slower,
 * which showed on the megabytes of a large store's partition.
 */
export function decodeUtf8(bytes: Uint8Array, file: string): string {
  if (!isUtf8(bytes)) throw new ArchiveError('bad_record', `${file}: not valid UTF-8`);
  const text = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8');
  // A leading byte order mark is dropped, as TextDecoder does.
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}

/**
 * Calls `fn` for each non-blank line of JSONL bytes, with its 1-based number, text and byte
 * range. Line lengths are measured in bytes before anything is decoded, so one huge line is
 * refused without building a huge string. The file is then decoded once: a `\n` byte is only
 * ever a newline in UTF-8, so the string splits into the same lines.
 */
export function forEachJsonLine(
  bytes: Uint8Array,
  file: string,
  maxLineBytes: number,
  fn: (line: number, text: string, start: number, end: number) => void,
): void {
  const starts: number[] = [];
  let start = bytes[0] === BOM[0] && bytes[1] === BOM[1] && bytes[2] === BOM[2] ? 3 : 0;
  for (let lineNumber = 1; start <= bytes.length; lineNumber++) {
    let end = bytes.indexOf(0x0a, start);
    if (end === -1) end = bytes.length;
    if (end - start > maxLineBytes) {
      throw new ArchiveError('line_too_long', `${file} line ${lineNumber} is longer than ${maxLineBytes} bytes`);
    }
    starts.push(start);
    start = end + 1;
  }
  const texts = decodeUtf8(bytes, file).split('\n');
  for (let index = 0; index < texts.length; index++) {
    const text = texts[index]!;
    // `\S` is exactly what String.prototype.trim keeps, without building the trimmed copy.
    if (NOT_BLANK.test(text)) fn(index + 1, text, starts[index]!, index + 1 < starts.length ? starts[index + 1]! - 1 : bytes.length);
  }
}

/**
 * {@link forEachJsonLine} without decoding: each non-blank line's number and byte range, the
 * same lines (blank means only what `\s` matches), the same caps, and the whole file checked
 * to be UTF-8. A line holding non-ASCII bytes before any other character is decoded to decide.
 */
export function forEachJsonLineRange(bytes: Buffer, file: string, maxLineBytes: number, fn: (line: number, start: number, end: number) => void): void {
  if (!isUtf8(bytes)) throw new ArchiveError('bad_record', `${file}: not valid UTF-8`);
  let start = bytes[0] === BOM[0] && bytes[1] === BOM[1] && bytes[2] === BOM[2] ? 3 : 0;
  for (let lineNumber = 1; start <= bytes.length; lineNumber++) {
    let end = bytes.indexOf(0x0a, start);
    if (end === -1) end = bytes.length;
    if (end - start > maxLineBytes) {
      throw new ArchiveError('line_too_long', `${file} line ${lineNumber} is longer than ${maxLineBytes} bytes`);
    }
    if (!isBlankLine(bytes, start, end)) fn(lineNumber, start, end);
    start = end + 1;
  }
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

/** Parses a whole JSON document that must be an object; `code` says which error to raise. */
export function parseJsonObject(bytes: Uint8Array, file: string, code: 'bad_manifest' | 'bad_record'): JsonObject {
  let text: string;
  try {
    text = strictUtf8.decode(bytes);
  } catch {
    throw new ArchiveError(code, `${file}: not valid UTF-8`);
  }
  const value = tryParseJson(text);
  if (value === undefined) throw new ArchiveError(code, `${file}: not valid JSON`);
  if (!isJsonObject(value)) throw new ArchiveError(code, `${file}: expected a JSON object`);
  return value;
}
