import { Command, CommanderError } from 'commander';
import { registerExportCommand } from './commands/export';
import { registerIndexCommand } from './commands/index-cmd';
import { registerKeysCommand } from './commands/keys';
import { registerRestoreCommand } from './commands/restore';
import { registerServeCommand } from './commands/serve';
import { registerSyncCommand } from './commands/sync';
import { registerValidateCommand } from './commands/validate';
import { CliError, failAndExit } from './output';

/** The `lineage` command: one JSON object on stdout, progress on stderr, errors exit 1. */
export function buildProgram(): Command {
  const program = new Command('lineage')
    .description('ALF Lineage: sync agent memory to an append-only ledger and explore its history')
    .version('0.1.0')
    .showHelpAfterError(false)
    .exitOverride()
    .configureOutput({ writeErr: (text) => process.stderr.write(text) });
  registerSyncCommand(program);
  registerRestoreCommand(program);
  registerExportCommand(program);
  registerValidateCommand(program);
  registerIndexCommand(program);
  registerServeCommand(program);
  registerKeysCommand(program);
  for (const command of program.commands) command.exitOverride();
  return program;
}

async function main(): Promise<void> {
  try {
    await buildProgram().parseAsync(process.argv);
  } catch (error) {
    if (error instanceof CommanderError) {
      if (error.exitCode === 0) process.exit(0);
      throw new CliError('invalid_argument', error.message.replace(/^error: /, ''), 'run `lineage --help` for usage');
    }
    throw error;
  }
}

main().catch(failAndExit);
