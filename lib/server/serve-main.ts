/**
 * A standalone process entry for `serve` and `keys` (tests and benchmarks spawn it
 * with tsx); the full CLI is `lib/cli/main.ts`.
 */
import { Command } from 'commander';
import { registerKeysCommand } from '@/lib/cli/commands/keys';
import { registerServeCommand } from '@/lib/cli/commands/serve';
import { failAndExit } from '@/lib/cli/output';

const program = new Command('lineage-serve').exitOverride();
registerServeCommand(program);
registerKeysCommand(program);
program.parseAsync(process.argv).then(() => process.exit(0), failAndExit);
