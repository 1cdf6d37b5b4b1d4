import { Command, CommanderError } from 'commander';
import { endCommand } from './command-end';
import { CliError, failAndExit } from './output';

type Register = (program: Command) => void;

/**
 * Commands load lazily: a `lineage sync` never pays for the web server's imports, which keeps
 * every invocation quick when scripts call the CLI in a loop.
 */
const COMMANDS: Record<string, () => Promise<Register>> = {
  sync: async () => (await import('./commands/sync')).registerSyncCommand,
  watch: async () => (await import('./commands/watch')).registerWatchCommand,
  restore: async () => (await import('./commands/restore')).registerRestoreCommand,
  export: async () => (await import('./commands/export')).registerExportCommand,
  validate: async () => (await import('./commands/validate')).registerValidateCommand,
  index: async () => (await import('./commands/index-cmd')).registerIndexCommand,
  search: async () => (await import('./commands/search')).registerSearchCommand,
  doctor: async () => (await import('./commands/doctor')).registerDoctorCommand,
  serve: async () => (await import('./commands/serve')).registerServeCommand,
  keys: async () => (await import('./commands/keys')).registerKeysCommand,
  demo: async () => (await import('./commands/demo')).registerDemoCommand,
  start: async () => (await import('./commands/start')).registerStartCommand,
  migrate: async () => (await import('./commands/migrate')).registerMigrateCommand,
  'pack-blobs': async () => (await import('./commands/pack-blobs')).registerPackBlobsCommand,
  state: async () => (await import('./commands/state')).registerStateCommand,
};

/** The `lineage` command: one JSON object on stdout, progress on stderr, errors exit 1. */
export async function buildProgram(only?: string): Promise<Command> {
  const program = new Command('lineage')
    .description('ALF Lineage: sync agent memory to an append-only ledger and explore its history')
    .version('0.1.0')
    .exitOverride()
    .configureOutput({ writeErr: (text) => process.stderr.write(text) });
  const known = only !== undefined && only in COMMANDS;
  // Which command ran, for bin/cli-cache.mjs: a code cache is kept for commands only, not for every word typed.
  (globalThis as Record<symbol, unknown>)[Symbol.for('lineage.cli.command')] = known ? only : null;
  const names = known ? [only] : Object.keys(COMMANDS);
  for (const name of names) (await COMMANDS[name]!())(program);
  for (const command of program.commands) command.exitOverride();
  return program;
}

async function main(): Promise<void> {
  try {
    const program = await buildProgram(process.argv[2]);
    await program.parseAsync(process.argv);
    await endCommand();
  } catch (error) {
    if (error instanceof CommanderError) {
      if (error.exitCode === 0) process.exit(0);
      throw new CliError('invalid_argument', error.message.replace(/^error: /, ''), 'run `lineage --help` for usage');
    }
    throw error;
  }
}

main().catch(failAndExit);
