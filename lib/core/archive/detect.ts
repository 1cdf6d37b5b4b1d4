import { DELTA_MANIFEST_FILE } from './read-snapshot';
import type { ArchiveLimits } from './types';
import { listZipNames, resolveLimits } from './zip-read';

/**
 * True when the archive carries `delta-manifest.json` (a `.alf-delta`). Reads only the
 * central directory; names are safety-checked, so a hostile archive is refused here too.
 */
export async function isDeltaArchive(bytes: Uint8Array, limits?: Partial<ArchiveLimits>): Promise<boolean> {
  const names = await listZipNames(bytes, resolveLimits(limits));
  return names.includes(DELTA_MANIFEST_FILE);
}
