import type { Command } from 'commander';
import { isRuntime, type Runtime } from '@/lib/adapters/types';
import { CliError } from './output';

export function parseRuntime(value: string | undefined): Runtime {
  const runtime = value ?? 'openclaw';
  if (!isRuntime(runtime)) throw new CliError('invalid_runtime', `unknown runtime "${runtime}"`, 'use one of: openclaw, zeroclaw, hermes');
  return runtime;
}

export function parseSequence(value: string | undefined, flag: string): number | undefined {
  if (value === undefined) return undefined;
  if (!/^\d+$/.test(value)) throw new CliError('invalid_argument', `${flag} must be a non-negative integer, got "${value}"`);
  return Number(value);
}

export function requireOption<T>(value: T | undefined, flag: string, hint?: string): T {
  if (value === undefined || value === '') throw new CliError('invalid_argument', `missing required option ${flag}`, hint);
  return value;
}

/**
 * The first option given an empty (or blank) value on the command line, as its flag: an empty
 * `--data "$DIR"` was taken for no `--data` at all (the default directory), an empty `--blob-url`
 * for none, an empty `--agent` for every agent.
 */
export function blankOption(command: Command): { flag: string; required: boolean } | null {
  for (const option of command.options) {
    const key = option.attributeName();
    const value: unknown = command.getOptionValue(key);
    if (command.getOptionValueSource(key) === 'cli' && typeof value === 'string' && value.trim() === '') {
      return { flag: option.long ?? option.short ?? key, required: option.mandatory };
    }
  }
  return null;
}
