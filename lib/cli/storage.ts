/**
 * The storage a CLI command reads and writes, from the composition root (lib/storage/open.ts): the
 * embedded data directory it is given. The scale-out settings (`--database-url`, `--blob-url`) are
 * read by lib/storage/config.ts and handed to `storageFor` there.
 */
import { storageFor } from '@/lib/storage/open';
import type { LineageStorage } from '@/lib/storage/types';

export function cliStorage(dataDir: string): Promise<LineageStorage> {
  return storageFor({ backend: 'embedded', dataDir });
}
