import { MEMORY_DIR } from './openclaw/workspace-files';
import type { Runtime } from './types';

/**
 * The directories each runtime's export walks for raw files (CONTRACT §3.3), beside the root files
 * it looks up by name: where a sync finds a restore's staging files, and where the next restore
 * looks for those an interrupted one left (`shared/restore-staging.ts`); a restore's marker names
 * the directories outside them it staged into.
 */
export const RAW_DIRS = {
  openclaw: [MEMORY_DIR],
  zeroclaw: ['memory'],
  hermes: ['memories', 'skill-bundles', 'cron'],
} as const satisfies Record<Runtime, readonly string[]>;
