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
