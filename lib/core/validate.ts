import { isJsonObject } from './json';
import { readDelta, readSnapshot, DELTA_MANIFEST_FILE, MANIFEST_FILE } from './archive/index';
import { parseDocument } from './validate/documents';
import { checkDelta } from './validate/delta-checks';
import { Issues, type Issue } from './validate/rules';
import { checkSnapshot } from './validate/snapshot-checks';
import { ArchiveError, type ArchiveLimits } from './archive/types';
import { readZip, resolveLimits } from './archive/zip-read';

export type { Issue } from './validate/rules';

/** Result of {@link validateArchive}, shaped like the reference `alf validate` output. */
export interface ValidationResult {
  valid: boolean;
  errors: Issue[];
  warnings: Issue[];
}

/**
 * `strictCrypto`: the reference's `alf validate --strict-crypto` (CONTRACT §2.3): a credential with
 * `algorithm: "none"` (no ciphertext) or an unknown algorithm is an error instead of a warning.
 */
export interface ValidateOptions {
  strictCrypto?: boolean;
}

/**
 * Validates a `.alf` or `.alf-delta` against the ALF schemas (re-stated in code; nothing
 * is read from disk) and against what our readers require. Never throws for bad input:
 * unsafe or corrupt archives come back `valid: false` with an error under `archive`.
 * Unknown enum values are warnings, as the schemas require.
 */
export async function validateArchive(bytes: Uint8Array, limits?: Partial<ArchiveLimits>, options: ValidateOptions = {}): Promise<ValidationResult> {
  const caps = resolveLimits(limits);
  const issues = new Issues(options.strictCrypto === true);
  let files: Map<string, Uint8Array>;
  try {
    files = (await readZip(bytes, caps)).files;
  } catch (err) {
    issues.error('archive', describe(err));
    return result(issues);
  }
  const deltaManifest = deltaManifestFile(files, issues);
  if (deltaManifest) checkDelta(files, deltaManifest, issues, caps.maxLineBytes);
  else checkSnapshot(files, issues, caps.maxLineBytes);
  if (issues.errors.length === 0) await confirmReadable(bytes, caps, deltaManifest !== null, issues);
  return result(issues);
}

/** The delta manifest's file, or null for a snapshot (`manifest.json` with `sync.base_sequence` counts as a delta). */
function deltaManifestFile(files: ReadonlyMap<string, Uint8Array>, issues: Issues): string | null {
  if (files.has(DELTA_MANIFEST_FILE)) return DELTA_MANIFEST_FILE;
  const quiet = new Issues();
  const manifest = parseDocument(files, MANIFEST_FILE, quiet);
  const sync = manifest && isJsonObject(manifest.sync) ? manifest.sync : null;
  if (!sync || sync.base_sequence === undefined || manifest?.layers !== undefined) return null;
  issues.warn(MANIFEST_FILE, 'delta manifest stored as manifest.json; the reference writes delta-manifest.json');
  return MANIFEST_FILE;
}

/** Anything the readers still refuse (a case the schema checks did not catch) is an error too. */
async function confirmReadable(bytes: Uint8Array, caps: ArchiveLimits, delta: boolean, issues: Issues): Promise<void> {
  try {
    await (delta ? readDelta(bytes, caps) : readSnapshot(bytes, caps));
  } catch (err) {
    // Duplicate ids were reported (as warnings) line by line already.
    if (err instanceof ArchiveError && err.code === 'duplicate_record_id') return;
    issues.error('archive', describe(err));
  }
}

function describe(err: unknown): string {
  if (err instanceof ArchiveError) return `${err.code}: ${err.message}`;
  return err instanceof Error ? err.message : String(err);
}

function result(issues: Issues): ValidationResult {
  return { valid: issues.errors.length === 0, errors: issues.errors, warnings: issues.warnings };
}
