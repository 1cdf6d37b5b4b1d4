import type { Command } from 'commander';
import { findAgent, searchFirstAppearance } from '@/lib/history/queries';
import { searchOptions } from '@/lib/history/search/options';
import { openLedger } from '@/lib/ledger';
import { existingDataDir } from '../options';
import { CliError, printJson } from '../output';

/**
 * `lineage search "QUERY" [--agent ID] [--limit N] [--offset N] [--data DIR]`: the same search, and
 * the same JSON, as GET /api/search (both doors call searchFirstAppearance with searchOptions).
 */
export function registerSearchCommand(program: Command): void {
  program
    .command('search')
    .description('when did this fact first appear, and what became of it (the JSON of GET /api/search)')
    .argument('<query>', 'words (all in one version), "exact phrases", prefix*')
    .option('--agent <id>', 'search one agent only')
    .option('--limit <n>', 'later appearances per page (default 50, at most 500)')
    .option('--offset <n>', 'later appearances to skip')
    .option('--data <dir>', 'data directory (default: $LINEAGE_DATA or ./data)')
    .action((query: string, opts: { agent?: string; limit?: string; offset?: string; data?: string }) => {
      const ledger = openLedger(existingDataDir(opts.data));
      const options = searchOptions({ q: query, agent: opts.agent, limit: opts.limit, offset: opts.offset });
      if (options.agentId !== undefined && !findAgent(ledger.db, options.agentId)) {
        throw new CliError('agent_not_found', `agent ${options.agentId} not found`, 'list agents with the dashboard or GET /api/agents');
      }
      printJson(searchFirstAppearance({ db: ledger.db, ...options }));
    });
}
