import { Command, CommanderError } from 'commander';
import { endCommand } from './command-end';
import { CliError, failAndExit } from './output';
import { blankOption } from './parse-options';

export type Register = (program: Command) => void;
/** The commands a CLI entry knows, by name: each loads its module on first use. */
export type Commands = Record<string, () => Promise<Register>>;

/** Whether `word` names one of `commands` (its own key: not `constructor` or `__proto__`). */
const isCommand = (commands: Commands, word: string | undefined): word is string => word !== undefined && Object.hasOwn(commands, word);

/**
 * The CLI with `commands` (lib/cli/main.ts: all of them; lib/cli/sync-main.ts: `sync` alone, the
 * bundle a `lineage sync` process runs): parses process.argv and runs the command, errors reported
 * as every error is (failAndExit).
 */
export function runProgram(commands: Commands): void {
  main(commands).catch(failAndExit);
}

/** The `lineage` command: one JSON object on stdout, progress on stderr, errors exit 1. */
async function buildProgram(commands: Commands, only?: string): Promise<Command> {
  const program = new Command('lineage')
    .description('ALF Lineage: sync agent memory to an append-only ledger and explore its history')
    .version('0.1.0')
    .exitOverride()
    // Help goes to stderr; a usage error is not written here but reported once, as every
    // error is (failAndExit: the JSON on stdout, `error:` and `hint:` on stderr).
    .configureOutput({ writeErr: (text) => process.stderr.write(text), outputError: () => {} });
  const known = isCommand(commands, only);
  // Which command ran, for bin/cli-cache.cjs: a code cache is kept for commands only, not for every word typed.
  (globalThis as Record<symbol, unknown>)[Symbol.for('lineage.cli.command')] = known ? only : null;
  // `--version` needs no command; help, an unknown word or none at all lists them all.
  const names = known ? [only] : only === '-V' || only === '--version' ? [] : Object.keys(commands);
  for (const name of names) (await commands[name]!())(program);
  for (const command of program.commands) command.exitOverride();
  program.hook('preAction', (_program, action) => refuseBlankValues(action));
  return program;
}

async function main(commands: Commands): Promise<void> {
  const argv = process.argv;
  // `lineage help sync` loads sync, as `lineage sync --help` does.
  const word = argv[2] === 'help' && isCommand(commands, argv[3]) ? argv[3] : argv[2];
  let program: Command | undefined;
  try {
    program = await buildProgram(commands, word);
    await program.parseAsync(argv);
    await endCommand();
  } catch (error) {
    if (error instanceof CommanderError) {
      if (error.exitCode === 0) process.exit(0);
      throw usageError(commands, error, argv.slice(2), program);
    }
    throw error;
  }
}

/** The `lineage …` words that name `command` (`lineage keys revoke`). */
function commandPath(command: Command): string {
  const names: string[] = [];
  for (let at: Command | null = command; at; at = at.parent) names.unshift(at.name());
  return names.join(' ');
}

/** An option given an empty value is a mistake (an unset variable), not the option left out. */
function refuseBlankValues(action: Command): void {
  const blank = blankOption(action);
  if (blank !== null) {
    const { flag, required } = blank;
    throw new CliError('invalid_argument', `${flag} was given an empty value`, `give ${flag} a value${required ? '' : ', or leave it out for its default'} (\`${commandPath(action)} --help\`)`);
  }
}

/**
 * A usage mistake as a coded error. Commander answers a missing command (`lineage`, `lineage keys`)
 * by printing the help, which lists the commands, and throwing `commander.help` ("(outputHelp)").
 */
function usageError(commands: Commands, error: CommanderError, args: string[], program: Command | undefined): CliError {
  // `lineage help WORD` for a WORD that is no command: commander lists the commands.
  if (error.code === 'commander.help' && args[0] === 'help' && args[1] !== undefined && !isCommand(commands, args[1])) {
    return new CliError('invalid_argument', `unknown command '${args[1]}'`, 'the usage above lists the commands');
  }
  if (error.code === 'commander.help') {
    const group = args[0] !== undefined && !args[0].startsWith('-') ? args[0] : null;
    return group === null
      ? new CliError('invalid_argument', 'no command given: the usage above lists the commands', 'run `lineage <command> --help` for a command\'s options')
      : new CliError('invalid_argument', `\`lineage ${group}\` needs a subcommand: the usage above lists them`, `run \`lineage ${group} <subcommand> --help\` for its options`);
  }
  return new CliError('invalid_argument', error.message.replace(/^error: /, ''), `run \`${usedCommand(commands, args, program)} --help\` for usage`);
}

/** The command a mistaken command line was for, as far as it names one: `lineage keys revoke`, `lineage sync`, `lineage`. */
function usedCommand(commands: Commands, args: string[], program: Command | undefined): string {
  if (!isCommand(commands, args[0])) return 'lineage';
  const command = program?.commands.find((c) => c.name() === args[0]);
  const sub = command?.commands.find((c) => c.name() === args[1]);
  return sub ? commandPath(sub) : `lineage ${args[0]}`;
}
