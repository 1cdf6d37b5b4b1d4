import type { Command } from 'commander';
import type { AgentRow } from '@/db/schema';
import type { LineageStorage } from '@/lib/storage/types';
import { CliError, printJson, progress } from '../output';
import { cliStorage, storageOptions, type StorageFlags } from '../storage';

/** An agent as `keys list` names it under its key. */
function agentEntry(row: AgentRow): { id: string; name: string; source_runtime: string | null; latest_sequence: number | null } {
  return { id: row.id, name: row.name, source_runtime: row.source_runtime, latest_sequence: row.latest_sequence };
}

function keyId(id: string, what: string): string {
  if (id.trim() === '') throw new CliError('invalid_argument', `the key id ${what} is empty`, 'run `lineage keys list` for the ids');
  return id;
}

const NOT_FOUND_HINT = 'run `lineage keys list` for the keys that remain';
const notFound = (id: string) =>
  // A revoked key is removed, not marked: one revoked already is not found either, and the words say so.
  new CliError('key_not_found', `no API key with id ${id}: none was issued with that id here, or it was revoked already (a revoked key is removed)`, NOT_FOUND_HINT);
const targetNotFound = (id: string) =>
  new CliError('key_not_found', `no API key with id ${id} to hand the agents to: none was issued with that id here, or it was revoked already; nothing was changed`,
    'run `lineage keys list` for the keys that remain, or `lineage keys create --name NAME` for a new one');

/** `lineage keys create|list|revoke|rotate|hand-over`: API keys (each key is a tenant), stored hashed, in the embedded or the scale-out storage. */
export function registerKeysCommand(program: Command): void {
  const keys = program.command('keys').description('manage API keys of the sync service (each key is a tenant: the agents synced with it are its own)');
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
    .description('list keys (ids and names, never the keys) and the agents each owns; agents of keys revoked since under agents_of_revoked_keys'))
    .action(async (flags: StorageFlags) => {
      const storage = await cliStorage(flags, { command: 'keys list', mustExist: true });
      printJson({ ok: true, ...(await keysWithAgents(storage)) });
    });
  storageOptions(keys
    .command('revoke')
    .description('revoke a key by id: its sessions, signed URLs and syncs stop at once; its agents stay on the server (an admin key sees them in the dashboard) unless --agents-to gives them to another key')
    .argument('<id>', 'key id as printed by `keys create` or `keys list`')
    .option('--agents-to <key id>', 'give the revoked key\'s agents to this key, in the same step (its syncs continue them)'))
    .action(async (id: string, flags: StorageFlags & { agentsTo?: string }) => {
      keyId(id, 'to revoke');
      const storage = await cliStorage(flags, { command: 'keys revoke', mustExist: true });
      if (flags.agentsTo !== undefined) {
        const to = keyId(flags.agentsTo, 'given to --agents-to');
        if (to === id) throw new CliError('invalid_argument', `--agents-to names the key being revoked (${id})`, 'give --agents-to another key\'s id (`lineage keys list`)');
        const handed = await storage.handOverAgents({ from: id, to, revoke: true });
        if (!handed.ok) throw handed.reason === 'target_not_found' ? targetNotFound(to) : notFound(id);
        printJson({ ok: true, revoked: id, agents: handed.agents, agents_to: to });
        return;
      }
      const kept = (await storage.listAgents({ tenantId: id })).map((row) => row.id).sort();
      if (!(await storage.revokeApiKey({ id }))) throw notFound(id);
      if (kept.length > 0) {
        progress(`lineage keys revoke: the ${kept.length} agent(s) of key ${id} stay on the server, seen only by admin keys in the dashboard and synced by no key; `
          + `give them to another key with \`lineage keys hand-over ${id} KEY_ID\` (\`lineage keys list\` names them under agents_of_revoked_keys)`);
      }
      printJson({ ok: true, revoked: id, agents: kept, agents_to: null });
    });
  storageOptions(keys
    .command('rotate')
    .description('replace a key (a leaked one): a new key with the same name and admin flag takes its agents, and the old key is revoked (its sessions and signed URLs with it); the new key is printed once')
    .argument('<id>', 'id of the key to replace, as printed by `keys create` or `keys list`'))
    .action(async (id: string, flags: StorageFlags) => {
      keyId(id, 'to rotate');
      const storage = await cliStorage(flags, { command: 'keys rotate', mustExist: true });
      const issued = await storage.rotateApiKey({ id, now: new Date() });
      if (!issued) throw notFound(id);
      progress(`lineage keys rotate: key ${id} is revoked; give the new key to the machines that used it (--key or ALF_API_KEY): their next sync continues each agent`);
      printJson({ ok: true, key: issued.key, id: issued.id, name: issued.name, admin: issued.admin, replaces: id, agents: issued.agents });
    });
  storageOptions(keys
    .command('hand-over')
    .description('give every agent of a key — or of a key revoked since — to another key, whose syncs then continue them (the other key may also delete them)')
    .argument('<from>', 'id of the key (or revoked key) whose agents to give, as `keys list` names it')
    .argument('<to>', 'id of the key that takes them'))
    .action(async (from: string, to: string, flags: StorageFlags) => {
      keyId(from, 'to hand agents from');
      keyId(to, 'to hand agents to');
      if (from === to) throw new CliError('invalid_argument', `the agents would go from key ${from} to itself`, 'name two different keys (`lineage keys list`)');
      const storage = await cliStorage(flags, { command: 'keys hand-over', mustExist: true });
      const handed = await storage.handOverAgents({ from, to });
      if (!handed.ok) throw targetNotFound(to);
      if (handed.agents.length === 0) {
        throw new CliError('agents_not_found', `no agent belongs to ${from}: no key or revoked key with that id owns one here; nothing was changed`,
          'run `lineage keys list` for the keys and the agents each owns (agents_of_revoked_keys for revoked ones)');
      }
      printJson({ ok: true, from, to, agents: handed.agents });
    });
}

/** Every key with the agents it owns, and the agents of keys revoked since (by the revoked key's id). */
async function keysWithAgents(storage: LineageStorage) {
  const [keys, agents] = await Promise.all([storage.listApiKeys(), storage.listAgents({})]);
  const byTenant = new Map<string, AgentRow[]>();
  for (const row of agents) {
    if (row.tenant_id === null) continue;
    const list = byTenant.get(row.tenant_id) ?? [];
    list.push(row);
    byTenant.set(row.tenant_id, list);
  }
  const sorted = (rows: AgentRow[] | undefined) => (rows ?? []).map(agentEntry).sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  const live = new Set(keys.map((key) => key.id));
  return {
    keys: keys.map((key) => ({ ...key, agents: sorted(byTenant.get(key.id)) })),
    agents_of_revoked_keys: [...byTenant.keys()].filter((id) => !live.has(id)).sort()
      .map((id) => ({ key_id: id, agents: sorted(byTenant.get(id)) })),
  };
}
