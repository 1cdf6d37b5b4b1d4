/** Query-parameter parsing shared by the views (browser) and the pages' server renders: plain functions. */
import { echoInput } from '@/lib/core/echo';

/** A non-negative integer (at most 2^53 − 1, exact as a number) from a query parameter, else null. */
export function intParam(value: string | null): number | null {
  if (value === null || !/^\d+$/.test(value)) return null;
  const n = Number(value);
  return Number.isSafeInteger(n) ? n : null;
}

/**
 * What is wrong with an integer parameter the address holds but that is not one (`?seq=1.5`,
 * `?at=-1`, `?offset=1e309`), in words; null when it is absent, empty or fine. A view says it
 * instead of quietly showing its default (the latest sequence, the first page) as if asked for.
 */
export function intParamProblem(name: string, value: string | null): string | null {
  if (value === null || value === '' || intParam(value) !== null) return null;
  return `The address asks for ${name}=“${echoInput(value)}”, which is not a whole number from 0 to ${Number.MAX_SAFE_INTEGER}: correct it or remove it.`;
}
