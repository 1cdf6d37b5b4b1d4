import { isJsonObject } from '@/lib/core/json';

/** The parts of `.alf-brain-db-schema.json` restore uses (its DDL is never executed). */
export interface BrainSidecar {
  agent: { id: string; alias: string; created_at: string | null } | null;
  schemaVersion: { component: string; version: number; applied_at: string }[];
}

/**
 * Reads the sidecar leniently: it comes from an untrusted archive, so anything not
 * of the expected shape is ignored rather than trusted.
 */
export function parseBrainSidecar(bytes: Uint8Array | undefined): BrainSidecar {
  const empty: BrainSidecar = { agent: null, schemaVersion: [] };
  if (bytes === undefined) return empty;
  let doc: unknown;
  try {
    doc = JSON.parse(new TextDecoder().decode(bytes));
  } catch {
    return empty;
  }
  if (!isJsonObject(doc)) return empty;
  const agent = isJsonObject(doc.agent) && typeof doc.agent.id === 'string' && typeof doc.agent.alias === 'string'
    ? { id: doc.agent.id, alias: doc.agent.alias, created_at: typeof doc.agent.created_at === 'string' ? doc.agent.created_at : null }
    : null;
  const schemaVersion = (Array.isArray(doc.schema_version) ? doc.schema_version : []).flatMap((row) =>
    isJsonObject(row) && typeof row.component === 'string' && typeof row.version === 'number' && typeof row.applied_at === 'string'
      ? [{ component: row.component, version: row.version, applied_at: row.applied_at }]
      : [],
  );
  return { agent, schemaVersion };
}
