import { ServiceError } from './errors';
import { echoInput } from '@/lib/core/echo';

/** A `true`/`false` query parameter (absent: false); anything else, or given twice, is a 400 naming it. */
export function flagParam(url: URL, name: string): boolean {
  const values = url.searchParams.getAll(name);
  if (values.length > 1) throw new ServiceError('bad_request', `query parameter ${name} is given ${values.length} times; give it once`);
  const text = values[0];
  if (text === undefined || text === 'false') return false;
  if (text === 'true') return true;
  throw new ServiceError('bad_request', `${name} must be true or false, got "${echoInput(text)}"`);
}

/**
 * A non-negative integer query parameter; `undefined` when absent and not required.
 * Anything else (negative, fractional, huge, empty, given twice) is a 400 that names the parameter.
 */
export function sequenceParam(url: URL, name: string, required: true): number;
export function sequenceParam(url: URL, name: string, required?: false): number | undefined;
export function sequenceParam(url: URL, name: string, required = false): number | undefined {
  const values = url.searchParams.getAll(name);
  if (values.length > 1) throw new ServiceError('bad_request', `query parameter ${name} is given ${values.length} times; give it once`);
  const text = values[0] ?? null;
  if (text === null) {
    if (required) throw new ServiceError('bad_request', `missing query parameter ${name}`);
    return undefined;
  }
  const value = /^\d{1,15}$/.test(text) ? Number(text) : NaN;
  if (!Number.isSafeInteger(value)) {
    throw new ServiceError('bad_request', `${name} must be a non-negative integer, got "${echoInput(text)}"`);
  }
  return value;
}
