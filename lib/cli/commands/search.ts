import type { Command } from 'commander';
import { searchOptions } from '@/lib/history/search/options';
import { isLedgerError } from '@/lib/ledger/errors';
import { CliError, printJson } from '../output';
import { parseAgentId } from '../parse-options';
import { cliStorage, storageOptions, type StorageFlags } from '../storage';

/**
 * `lineage search "QUERY" [--agent ID] [--limit N] [--offset N] [--data DIR | --database-url … --blob-url …]`:
 * the same search, and the same JSON, as GET /api/search (both doors call the storage's `search` with searchOptions).
 */
export function registerSearchCommand(program: Command): void {
  storageOptions(program
    .command('search')
    .description('when did this fact first appear, and what became of it (the JSON of GET /api/search)')
    .argument('<query>', 'words (all in one version), "exact phrases", prefix*')
    .option('--agent <id>', 'search one agent only')
    .option('--limit <n>', 'later appearances per page (default 50, at most 500)')
    .option('--offset <n>', 'later appearances to skip'))
    .action(async (query: string, opts: StorageFlags & { agent?: string; limit?: string; offset?: string }) => {
      await withSearchHint(async () => {
        const options = searchOptions({ q: query, agent: opts.agent, limit: opts.limit, offset: opts.offset });
        // No UUID is a usage mistake, said before the storage is opened (it was "agent not-a-uuid not found").
        if (opts.agent !== undefined) parseAgentId(opts.agent, '--agent');
        const storage = await cliStorage(opts, { command: 'search', mustExist: true });
        const agentId = options.agentId;
        // The storage reads a UUID (trimmed); the id must be one as given.
        if (agentId !== undefined && (agentId !== agentId.trim() || !(await storage.getAgent({ agentId })))) {
          throw new CliError('agent_not_found', `agent ${options.agentId} not found`, 'list agents with the dashboard or GET /api/agents');
        }
        printJson(await storage.search(options));
      });
    });
}

/** A query or option the search refuses (`invalid_input`, as GET /api/search answers it), with what it takes. */
async function withSearchHint(search: () => Promise<void>): Promise<void> {
  try {
    await search();
  } catch (error) {
    if (!isLedgerError(error, 'invalid_input')) throw error;
    throw new CliError('invalid_input', error.message, 'words (all in one version), "exact phrases", prefix*; --limit and --offset whole numbers (`lineage search --help`)');
  }
}
