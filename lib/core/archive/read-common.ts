import { isJsonObject, type JsonObject } from '../json';
import { asMemoryRecord, RecordShapeError, type MemoryRecord } from '../record';
import { forEachJsonLine, parseJsonObject, tryParseJson, type JsonLine } from './json-text';
import { ArchiveError, type ReadHooks } from './types';

/** Parses a manifest document and checks the one field every reader relies on: `agent.id`. */
export function parseManifest(bytes: Uint8Array, file: string, hooks?: ReadHooks): JsonObject {
  const manifest = parseJsonObject(bytes, file, 'bad_manifest', hooks?.manifest);
  const agent = manifest.agent;
  if (!isJsonObject(agent) || typeof agent.id !== 'string' || agent.id.length === 0) {
    throw new ArchiveError('bad_manifest', `${file}: agent.id is missing or not a string`);
  }
  return manifest;
}

/** A JSONL line parsed into a JSON object, or a `bad_record` error naming file and line. */
export function parseLineObject(file: string, line: Pick<JsonLine, 'line' | 'text'>): JsonObject {
  const value = tryParseJson(line.text);
  if (value === undefined) throw new ArchiveError('bad_record', `${file} line ${line.line}: not valid JSON`);
  if (!isJsonObject(value)) throw new ArchiveError('bad_record', `${file} line ${line.line}: expected a JSON object`);
  return value;
}

/** Checks a parsed line is a memory record; shape errors name the file, line and field. */
export function lineRecord(file: string, line: Pick<JsonLine, 'line' | 'text'>, value: JsonObject): MemoryRecord {
  try {
    return asMemoryRecord(value, 'record');
  } catch (err) {
    if (err instanceof RecordShapeError) {
      throw new ArchiveError('bad_record', `${file} line ${line.line}: ${err.message}`);
    }
    throw err;
  }
}

/**
 * The records of one JSONL partition with their line numbers, each handed to `fn` as it is parsed
 * (the partition's lines are all checked first: lengths, UTF-8).
 */
export function eachRecordOfFile(bytes: Uint8Array, file: string, maxLineBytes: number, fn: (line: number, record: MemoryRecord, text: string) => void): void {
  forEachJsonLine(bytes, file, maxLineBytes, (line, text) => {
    const jsonLine = { line, text };
    fn(line, lineRecord(file, jsonLine, parseLineObject(file, jsonLine)), text);
  });
}

/** Remembers where each record id was seen, so a second sighting names both places. */
export class RecordIdRegistry {
  private readonly seen = new Map<string, string>();

  add(id: string, where: string): void {
    const first = this.seen.get(id);
    if (first !== undefined) {
      throw new ArchiveError('duplicate_record_id', `record id ${id} appears twice: ${first} and ${where}`);
    }
    this.seen.set(id, where);
  }
}
