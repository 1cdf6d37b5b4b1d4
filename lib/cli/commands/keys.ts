import type { Command } from 'commander';
import { openDatabase } from '@/db/client';
import { resolveDataDir } from '@/lib/ledger/data-dir';
import { createApiKey, listApiKeys, revokeApiKey } from '@/lib/server/api-keys';
import { existingDataDir } from '../options';
import { CliError, printJson } from '../output';

/** `lineage keys create|list|revoke`: API keys (each key is a tenant), stored hashed. */
export function registerKeysCommand(program: Command): void {
  const keys = program.command('keys').description('manage API keys of the sync service (each key is a tenant)');
  keys
    .command('create')
    .description('issue a key; it is printed once and only its hash is stored')
    .option('--name <name>', 'a label for the key')
    .option('--admin', 'an admin key: it signs in to the dashboard and sees every tenant')
    .option('--data <dir>', 'data directory (default: $LINEAGE_DATA or ./data)')
    .action((flags: { name?: string; data?: string; admin?: boolean }) => {
      const issued = createApiKey({ db: openDatabase(resolveDataDir(flags.data)), name: flags.name, now: new Date(), admin: flags.admin === true });
      printJson({ ok: true, key: issued.key, id: issued.id, name: issued.name, admin: issued.admin });
    });
  keys
    .command('list')
    .description('list keys (ids and names, never the keys)')
    .option('--data <dir>', 'data directory (default: $LINEAGE_DATA or ./data)')
    .action((flags: { data?: string }) => {
      printJson({ ok: true, keys: listApiKeys({ db: openDatabase(existingDataDir(flags.data)) }) });
    });
  keys
    .command('revoke')
    .description('revoke a key by id')
    .argument('<id>', 'key id as printed by `keys create` or `keys list`')
    .option('--data <dir>', 'data directory (default: $LINEAGE_DATA or ./data)')
    .action((id: string, flags: { data?: string }) => {
      if (!revokeApiKey({ db: openDatabase(existingDataDir(flags.data)), id })) {
        throw new CliError('key_not_found', `no API key with id ${id}`, 'run `lineage keys list`');
      }
      printJson({ ok: true, revoked: id });
    });
}
