import type { Command } from 'commander';
import { resolveDataDir } from '@/lib/ledger/data-dir';
import { existingDataDir } from '../options';
import { CliError, printJson } from '../output';
import { cliStorage } from '../storage';

/** `lineage keys create|list|revoke`: API keys (each key is a tenant), stored hashed. */
export function registerKeysCommand(program: Command): void {
  const keys = program.command('keys').description('manage API keys of the sync service (each key is a tenant)');
  keys
    .command('create')
    .description('issue a key; it is printed once and only its hash is stored')
    .option('--name <name>', 'a label for the key')
    .option('--admin', 'an admin key: it signs in to the dashboard and sees every tenant')
    .option('--data <dir>', 'data directory (default: $LINEAGE_DATA or ./data)')
    .action(async (flags: { name?: string; data?: string; admin?: boolean }) => {
      const storage = await cliStorage(resolveDataDir(flags.data));
      const issued = await storage.createApiKey({ name: flags.name, now: new Date(), admin: flags.admin === true });
      printJson({ ok: true, key: issued.key, id: issued.id, name: issued.name, admin: issued.admin });
    });
  keys
    .command('list')
    .description('list keys (ids and names, never the keys)')
    .option('--data <dir>', 'data directory (default: $LINEAGE_DATA or ./data)')
    .action(async (flags: { data?: string }) => {
      printJson({ ok: true, keys: await (await cliStorage(existingDataDir(flags.data))).listApiKeys() });
    });
  keys
    .command('revoke')
    .description('revoke a key by id')
    .argument('<id>', 'key id as printed by `keys create` or `keys list`')
    .option('--data <dir>', 'data directory (default: $LINEAGE_DATA or ./data)')
    .action(async (id: string, flags: { data?: string }) => {
      if (!(await (await cliStorage(existingDataDir(flags.data))).revokeApiKey({ id }))) {
        throw new CliError('key_not_found', `no API key with id ${id}`, 'run `lineage keys list`');
      }
      printJson({ ok: true, revoked: id });
    });
}
