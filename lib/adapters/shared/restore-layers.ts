import { isJsonObject, jsonEqual, type JsonObject, type JsonValue } from '@/lib/core/json';
import type { Runtime } from '../types';

/** The identity and principal layers a sync of the restored workspace reads back (null: none). */
export interface LayersReadBack {
  identity: JsonObject | null;
  principals: JsonObject | null;
}

/** Where each runtime's workspace keeps what it holds of the layers. */
const HOLDS: Record<Runtime, { identity: string; principals: string }> = {
  openclaw: {
    identity: 'an OpenClaw workspace holds only an identity\'s prose (SOUL.md, IDENTITY.md, AGENTS.md; TOOLS.md, HEARTBEAT.md, BOOTSTRAP.md as custom blocks), written from the layer only when the archive carries no raw/openclaw/ file',
    principals: 'an OpenClaw workspace holds one human principal\'s prose (USER.md), written from the layer only when the archive carries no raw/openclaw/ file',
  },
  hermes: {
    identity: 'a Hermes home holds only an identity\'s prose.soul, in SOUL.md, written from the archive\'s raw/hermes/SOUL.md',
    principals: 'a Hermes home holds one human principal\'s prose, in memories/USER.md, written from the archive\'s raw/hermes/memories/USER.md',
  },
  zeroclaw: {
    identity: 'lineage reads no identity from a ZeroClaw workspace (its SOUL.md and the like are carried as files only)',
    principals: 'lineage reads no principals from a ZeroClaw workspace (its USER.md is carried as a file only)',
  },
};

const LATER = 'a first snapshot synced from this workspace (--force-first-sync, or a first sync to another target)';
/**
 * Who replaces a layer with what the workspace holds: a runtime whose sync reads that layer from the
 * workspace (OpenClaw and Hermes read identity and principals) sends it in the next ordinary delta
 * too (a full document; principals gone are `{"principals": []}`, lib/sync/sync.ts `buildDelta`);
 * ZeroClaw reads neither, and only a first snapshot leaves them out.
 */
const NEXT = 'the next sync from this workspace, and any first snapshot synced from it,';
const whoLoses = (runtime: Runtime) => (runtime === 'zeroclaw' ? LATER : NEXT);
const KEPT = (what: string) => `the ledger keeps ${what} at the sequences that carry ${what}`;

/**
 * What a restore could not write back into the workspace of the snapshot's identity, principals and
 * credentials, as warnings: each layer is compared with what a sync of the restored workspace reads
 * back (`readBack`), times aside (they come back as the files' mtimes: `setLayerTimes`). Our own
 * archives restored into their own runtime give none; a reference client's archive (structured
 * identity, several principals, a credential vault) or another runtime's gives some.
 */
export function unwrittenLayerWarnings(runtime: Runtime, layers: { identity?: JsonObject; principals?: JsonObject; credentials?: JsonObject }, readBack: LayersReadBack): string[] {
  const warnings: string[] = [];
  const holds = HOLDS[runtime];
  if (layers.identity) {
    const original = withoutTime(layers.identity, []);
    if (readBack.identity === null) {
      warnings.push(`identity.json: ${LATER} will have no identity: ${holds.identity}; ${KEPT('it')}`);
    } else {
      const paths = differingPaths(original, withoutTime(readBack.identity, []), '', 3);
      if (paths.length > 0) warnings.push(`identity.json: ${whoLoses(runtime)} will not hold its ${paths.join(', ')}: ${holds.identity}; ${KEPT('it')}`);
    }
  }
  const principals = Array.isArray(layers.principals?.principals) ? (layers.principals!.principals as JsonValue[]) : [];
  if (principals.length > 0) {
    const back = Array.isArray(readBack.principals?.principals) ? (readBack.principals!.principals as JsonValue[]).map((p) => withoutTime(p, ['profile'])) : [];
    const lost: string[] = [];
    for (const principal of principals) {
      const original = withoutTime(principal, ['profile']);
      if (back.some((p) => jsonEqual(p, original))) continue;
      const id = isJsonObject(principal) ? principal.id : undefined;
      const name = `${typeof id === 'string' ? id : '(no id)'} (${isJsonObject(principal) && typeof principal.principal_type === 'string' ? principal.principal_type : 'no type'})`;
      const same = back.find((p) => isJsonObject(p) && p.id === id);
      if (same === undefined) {
        lost.push(name);
        continue;
      }
      // Only what the read-back adds (an `agent_id: null`) is nothing lost.
      const paths = differingPaths(original, same, '', 3);
      if (paths.length > 0) lost.push(`${name}: its ${paths.join(', ')}`);
    }
    if (lost.length > 0) {
      warnings.push(`principals.json: ${whoLoses(runtime)} will not hold ${lost.length} of its ${principals.length} principal${principals.length === 1 ? '' : 's'} as restored — ${lost.join('; ')}: ${holds.principals}; ${KEPT('them')}`);
    }
  }
  const credentials = Array.isArray(layers.credentials?.credentials) ? layers.credentials!.credentials.length : 0;
  if (credentials > 0) {
    warnings.push(
      `credentials.json: ${credentials} credential${credentials === 1 ? ' was' : 's were'} not restored: lineage has no credential vault, so a restore writes none (never into the workspace) and ${LATER} holds none; ${KEPT('them')}`,
    );
  }
  return warnings;
}

/** A layer document without its time: the top-level `updated_at`, and `updated_at` under each of `under`. */
function withoutTime(doc: JsonValue, under: string[]): JsonValue {
  if (!isJsonObject(doc)) return doc;
  const out: JsonObject = {};
  for (const [key, value] of Object.entries(doc)) {
    if (key === 'updated_at') continue;
    out[key] = under.includes(key) && value !== undefined ? withoutTime(value, []) : value;
  }
  return out;
}

/** The paths (`prose.soul`, `structured`) at which `a` holds what `b` does not, `depth` levels of objects deep. */
function differingPaths(a: JsonValue | undefined, b: JsonValue | undefined, prefix: string, depth: number): string[] {
  if (a !== undefined && b !== undefined && jsonEqual(a, b)) return [];
  if (a === undefined) return [];
  if (depth === 0 || !isJsonObject(a) || !isJsonObject(b)) return [prefix || '(whole document)'];
  return Object.keys(a).flatMap((key) => differingPaths(a[key], b[key], prefix ? `${prefix}.${key}` : key, depth - 1));
}
