import type { Command } from 'commander';
import { CliError, printJson } from '../output';
import { cliStorage, storageOptions, type StorageFlags } from '../storage';

/** `lineage keys create|list|revoke`: API keys (each key is a tenant), stored hashed, in the embedded or the scale-out storage. */
export function registerKeysCommand(program: Command): void {
  const keys = program.command('keys').description('manage API keys of the sync service (each key is a tenant)');
  storageOptions(keys
    .command('create')
    .description('issue a key; it is printed once and only its hash is stored')
    .option('--name <name>', 'a label for the key')
    .option('--admin', 'an admin key: it signs in to the dashboard and sees every tenant'))
    .action(async (flags: StorageFlags & { name?: string; admin?: boolean }) => {
      const storage = await cliStorage(flags, { command: 'keys create', mustExist: false });
      const issued = await storage.createApiKey({ name: flags.name, now: new Date(), admin: flags.admin === true });
      printJson({ ok: true, key: issued.key, id: issued.id, name: issued.name, admin: issued.admin });
    });
  storageOptions(keys
    .command('list')
    .description('list keys (ids and names, never the keys)'))
    .action(async (flags: StorageFlags) => {
      printJson({ ok: true, keys: await (await cliStorage(flags, { command: 'keys list', mustExist: true })).listApiKeys() });
    });
  storageOptions(keys
    .command('revoke')
    .description('revoke a key by id')
    .argument('<id>', 'key id as printed by `keys create` or `keys list`'))
    .action(async (id: string, flags: StorageFlags) => {
      if (id.trim() === '') throw new CliError('invalid_argument', 'the key id to revoke is empty', 'run `lineage keys list` for the ids');
      if (!(await (await cliStorage(flags, { command: 'keys revoke', mustExist: true })).revokeApiKey({ id }))) {
        // A revoked key is removed, not marked: one revoked already is not found either, and the words say so.
        throw new CliError('key_not_found', `no API key with id ${id}: none was issued with that id here, or it was revoked already (a revoked key is removed)`, 'run `lineage keys list` for the keys that remain');
      }
      printJson({ ok: true, revoked: id });
    });
}
