/**
 * The search's inputs as both doors receive them (query string, command-line options): strings
 * checked here once, so GET /api/search and `lineage search` refuse the same things the same way.
 */
import { LedgerError } from '@/lib/ledger/errors';
import { echoInput } from '@/lib/core/echo';

export interface SearchOptions { q: string; agentId?: string; limit?: number; offset?: number }

/** The largest count read (15 digits: exact as a double, and far past any history). */
const MAX_COUNT = 999_999_999_999_999;

/** Later appearances per page: `limit` defaults to 50 and is at most 500 (a larger one is refused, not cut). */
export const SEARCH_PAGE_DEFAULT = 50;
export const MAX_SEARCH_LIMIT = 500;

function tooLarge(value: number | string): LedgerError {
  return new LedgerError('invalid_input', `limit must be at most ${MAX_SEARCH_LIMIT} (later appearances per page), got "${echoInput(String(value))}"; page with offset for more`);
}

/**
 * The page size a search reads: `limit` (default 50) checked, never cut — both engines call it,
 * so a caller of the storage seam is refused as the two doors are.
 */
export function searchLimit(limit: number | undefined): number {
  if (limit === undefined) return SEARCH_PAGE_DEFAULT;
  if (!Number.isSafeInteger(limit) || limit < 1) throw new LedgerError('invalid_input', `limit must be a positive whole number, got "${echoInput(String(limit))}"`);
  if (limit > MAX_SEARCH_LIMIT) throw tooLarge(limit);
  return limit;
}

function count(name: string, value: string, min: number): number {
  if (!/^\d+$/.test(value) || Number(value) < min) {
    throw new LedgerError('invalid_input', `${name} must be ${min === 0 ? 'a non-negative' : 'a positive'} whole number, got "${echoInput(value)}"`);
  }
  // A whole number with too many digits was told it was not a whole number.
  if (value.replace(/^0+(?=\d)/, '').length > 15) throw new LedgerError('invalid_input', `${name} must be at most ${MAX_COUNT}, got "${echoInput(value)}"`);
  return Number(value);
}

/** `limit` as given: a positive whole number up to MAX_SEARCH_LIMIT, else refused in words that say the bounds. */
function pageLimit(value: string): number {
  // Any count of digits: 10^20 is past the page's largest as 501 is.
  if (/^\d+$/.test(value) && Number(value) > MAX_SEARCH_LIMIT) throw tooLarge(value);
  return count('limit', value, 1);
}

export function searchOptions(raw: { q?: string | null; agent?: string | null; limit?: string | null; offset?: string | null }): SearchOptions {
  // The agent as given: ` x` is not `x` (no agent id has white space: it is not found); empty is no filter.
  const agent = raw.agent;
  return {
    q: raw.q ?? '',
    ...(agent ? { agentId: agent } : {}),
    ...(raw.limit != null && raw.limit !== '' ? { limit: pageLimit(raw.limit) } : {}),
    ...(raw.offset != null && raw.offset !== '' ? { offset: count('offset', raw.offset, 0) } : {}),
  };
}
