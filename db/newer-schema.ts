/**
 * A database a newer ALF Lineage has migrated is refused, not opened. drizzle's migrator applies the
 * migrations of its folder newer than the newest one the database records, and silently nothing
 * when the database records one newer than all of them: an older lineage run after an upgrade (a
 * rollback, a second machine not yet upgraded, an older `npx`) then wrote into tables whose rules it
 * does not know — an agent deleted without the record a newer `doctor` relies on, a row missing a
 * column a newer query reads. Both backends record each migration's journal time (`created_at`);
 * one later than the newest of this version's journal is a migration this version does not know.
 */
import fs from 'node:fs';
import path from 'node:path';

/** What a drizzle migrations folder's journal says: how many migrations it holds and the newest one's `when`. */
export type KnownMigrations = { count: number; newest: number };

const journals = new Map<string, KnownMigrations>();

/** The journal of a drizzle migrations folder, read once per process (it ships with the code). */
export function knownMigrations(migrationsFolder: string): KnownMigrations {
  let known = journals.get(migrationsFolder);
  if (known === undefined) {
    const journal = JSON.parse(fs.readFileSync(path.join(migrationsFolder, 'meta', '_journal.json'), 'utf8')) as { entries: { when: number }[] };
    known = { count: journal.entries.length, newest: Math.max(...journal.entries.map((e) => e.when)) };
    journals.set(migrationsFolder, known);
  }
  return known;
}

/** The newest `when` of a drizzle migrations folder's journal (`knownMigrations`). */
export function newestKnownMigration(migrationsFolder: string): number {
  return knownMigrations(migrationsFolder).newest;
}

/**
 * Throws `storage_too_new` when `applied` (the `created_at` of each migration the database
 * records) holds one newer than `newestKnown`; `where` names the database in the message.
 */
export function refuseNewerSchema(applied: readonly (number | string | bigint)[], newestKnown: number, where: string): void {
  const newer = applied.map(Number).filter((when) => when > newestKnown);
  if (newer.length === 0) return;
  const newest = new Date(Math.max(...newer));
  const when = Number.isNaN(newest.getTime()) ? 'a later release' : newest.toISOString().slice(0, 10);
  throw Object.assign(
    new Error(`${where} was migrated by a newer ALF Lineage: it holds ${newer.length} migration${newer.length === 1 ? '' : 's'} this version does not know (the newest from ${when}), and this version would write to it what the newer one does not expect`),
    {
      code: 'storage_too_new',
      hint: 'run the newer lineage that upgraded it, or restore the data from a backup made before that upgrade; nothing was changed',
    },
  );
}

/** A database a newer lineage migrated while this process ran: how many migrations it records, and how many this version knows. */
export type SchemaNewer = { applied: number; known: number };

/**
 * Whether the migrations a database records now (`count` of them, the newest `created_at` being
 * `newest`) hold one this version does not know: a newer lineage migrated it under a running process.
 */
export function schemaNewerThan(recorded: { count: number; newest: number | string | bigint | null }, known: KnownMigrations): SchemaNewer | null {
  if (recorded.newest === null || Number(recorded.newest) <= known.newest) return null;
  return { applied: Number(recorded.count), known: known.count };
}

/** What a server whose database a newer lineage migrated answers to every request (`schema_newer`, 503). */
export function schemaNewerMessage(newer: SchemaNewer): string {
  return `the data directory was upgraded by a newer lineage (migration ${newer.applied}, this server knows up to ${newer.known}): restart the server with the newer lineage`;
}
