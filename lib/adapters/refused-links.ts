import { refusesLinkTo as hermesRefuses, STATE_DB_FILE } from './hermes/raw-files';
import { refusesLinkTo as openclawRefuses } from './openclaw/export-parts';
import type { Runtime } from './types';
import { refusesLinkTo as zeroclawRefuses } from './zeroclaw/raw-files';

/**
 * Each runtime's rule for the files of a workspace it never carries under another name — what its
 * sync refuses to follow a link to, and what a restore refuses to write through a link (beside a
 * `.env` and a control file, which no runtime does: `isRefusedTarget`). `database` is the
 * workspace-relative path of the runtime's database when it has one (ZeroClaw's `brain.db`).
 */
export function linkRefusal(runtime: Runtime, database: string | null): (target: string) => boolean {
  switch (runtime) {
    case 'openclaw':
      return openclawRefuses;
    case 'hermes':
      return hermesRefuses;
    case 'zeroclaw':
      return (target) => zeroclawRefuses(target, database);
  }
}

/**
 * The workspace-relative path a live restore opens as the runtime's database, null when none:
 * Hermes' `state.db` (read to tell whether memory is there, whether or not the snapshot has sessions
 * to write), ZeroClaw's `brain.db` where the plan found it or creates it (`planned`). What
 * `assertDatabaseNotThroughLink` judges before it is read — by the rule a sync of the workspace
 * follows too (`assertDatabaseReadableForSync`), so the two agree.
 */
export function databasePath(runtime: Runtime, planned: string | null): string | null {
  switch (runtime) {
    case 'openclaw':
      return null;
    case 'hermes':
      return STATE_DB_FILE;
    case 'zeroclaw':
      return planned;
  }
}
