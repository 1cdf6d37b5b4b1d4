import { utimes } from 'node:fs/promises';
import path from 'node:path';
import { isJsonObject, type JsonObject } from '@/lib/core/json';

/**
 * The identity and principal layers' timestamps are the mtimes of the workspace files they are
 * read from (CONTRACT §4.3: `updated_at` = the newest source mtime; a principal's
 * `profile.updated_at` = USER.md's mtime, which its comparison does not ignore). A restore writes
 * those files now, so without this the next sync of the restored workspace sent a principals
 * "change" holding the restore time, and a first snapshot made from it (`--force-first-sync`, a new
 * target) had both layers stamped with the restore time instead of the snapshot's.
 *
 * `files`: workspace-relative path → the layer time it gets. Node (libuv) sets times to the
 * microsecond, so a time with finer digits (a source on a filesystem with nanosecond mtimes) comes
 * back truncated to the microsecond. A time that is not RFC 3339, or before 1970 (which Node sets
 * to now), leaves the file's mtime as written.
 */
export async function setLayerTimes(target: string, files: ReadonlyMap<string, string>): Promise<void> {
  for (const [rel, time] of files) {
    const seconds = utimesSeconds(time);
    if (seconds === null) continue;
    await utimes(path.join(target, ...rel.split('/')), seconds, seconds);
  }
}

const RFC3339 = /^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d)(?:\.(\d+))?(Z|[+-]\d\d:\d\d)$/i;

/**
 * An RFC 3339 time as the seconds `utimes` takes, such that libuv (which truncates to whole
 * microseconds after a floating-point conversion) sets exactly its microseconds: half a microsecond
 * is added, more than the double's error at any date (under 2^-20 s before the year 2100).
 */
export function utimesSeconds(time: string): number | null {
  const match = RFC3339.exec(time);
  if (!match) return null;
  const whole = Date.parse(`${match[1]}${match[3]!.toUpperCase()}`);
  if (!Number.isFinite(whole)) return null;
  const micros = Number((match[2] ?? '').slice(0, 6).padEnd(6, '0'));
  const seconds = whole / 1000 + micros / 1e6;
  // Node sets a negative time (before 1970) to now: such a time is not set.
  return seconds < 0 ? null : seconds + 5e-7;
}

/**
 * Where a runtime's restore writes the layers' prose: each identity file with the path of its text
 * under the identity's `prose` (OpenClaw's SOUL.md `soul`, TOOLS.md `custom_blocks.tools_guidance`),
 * and the file that holds the human principal's `profile.prose.user_profile`.
 */
export interface LayerFiles {
  identity: readonly (readonly [file: string, prosePath: readonly string[]])[];
  user: string;
}

/**
 * The layer time each restored file gets back (`setLayerTimes`): the identity's `updated_at` for
 * each identity file, the human principal's `profile.updated_at` for the user file — each only
 * when the file written (`files`: workspace-relative path → bytes) holds exactly that layer's
 * prose, so the layers read back from the restored workspace are the snapshot's. Identity files
 * first, in `where`'s order, then the user file. OpenClaw's (`proseFileTimes`) and Hermes'
 * (`layerFileTimes`) restores.
 */
export function restoredLayerTimes(
  layers: { identity?: JsonObject; principals?: JsonObject }, files: ReadonlyMap<string, Uint8Array>, where: LayerFiles,
): Map<string, string> {
  const out = new Map<string, string>();
  const holds = (rel: string, text: unknown) => {
    const bytes = files.get(rel);
    return typeof text === 'string' && bytes !== undefined && Buffer.from(bytes).toString('utf8') === text;
  };
  const identityTime = layerTime(layers.identity, 'updated_at');
  if (identityTime !== undefined) {
    for (const [file, prosePath] of where.identity) {
      if (holds(file, valueAt(layers.identity, ['prose', ...prosePath]))) out.set(file, identityTime);
    }
  }
  const principal = humanPrincipal(layers.principals);
  const userTime = layerTime(principal, 'profile', 'updated_at');
  if (userTime !== undefined && holds(where.user, valueAt(principal, ['profile', 'prose', 'user_profile']))) out.set(where.user, userTime);
  return out;
}

/** A layer's time field when it is a string. */
function layerTime(doc: JsonObject | undefined, ...keys: string[]): string | undefined {
  const value = valueAt(doc, keys);
  return typeof value === 'string' ? value : undefined;
}

/**
 * The human principal whose prose USER.md holds: the first human one with a `profile.prose.user_profile`
 * (a reference archive may list a human with a structured profile only before it), else the first human one.
 */
export function humanPrincipal(principals: JsonObject | undefined): JsonObject | undefined {
  const list = principals?.principals;
  if (!Array.isArray(list)) return undefined;
  const humans = list.filter((p): p is JsonObject => isJsonObject(p) && (p.principal_type ?? 'human') === 'human');
  return humans.find((p) => typeof valueAt(p, ['profile', 'prose', 'user_profile']) === 'string') ?? humans[0];
}

function valueAt(doc: JsonObject | undefined, keys: readonly string[]): unknown {
  let value: unknown = doc;
  for (const key of keys) value = isJsonObject(value) ? value[key] : undefined;
  return value;
}
