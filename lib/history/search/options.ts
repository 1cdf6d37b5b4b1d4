/**
 * The search's inputs as both doors receive them (query string, command-line options): strings
 * checked here once, so GET /api/search and `lineage search` refuse the same things the same way.
 */
import { LedgerError } from '@/lib/ledger/errors';
import { echoInput } from '@/lib/core/echo';

export interface SearchOptions { q: string; agentId?: string; limit?: number; offset?: number }

/** The largest count read (15 digits: exact as a double, and far past any history). */
const MAX_COUNT = 999_999_999_999_999;

function count(name: string, value: string, min: number): number {
  if (!/^\d+$/.test(value) || Number(value) < min) {
    throw new LedgerError('invalid_input', `${name} must be ${min === 0 ? 'a non-negative' : 'a positive'} whole number, got "${echoInput(value)}"`);
  }
  // A whole number with too many digits was told it was not a whole number.
  if (value.replace(/^0+(?=\d)/, '').length > 15) throw new LedgerError('invalid_input', `${name} must be at most ${MAX_COUNT}, got "${echoInput(value)}"`);
  return Number(value);
}

export function searchOptions(raw: { q?: string | null; agent?: string | null; limit?: string | null; offset?: string | null }): SearchOptions {
  const agent = raw.agent?.trim();
  return {
    q: raw.q ?? '',
    ...(agent ? { agentId: agent } : {}),
    ...(raw.limit != null && raw.limit !== '' ? { limit: count('limit', raw.limit, 1) } : {}),
    ...(raw.offset != null && raw.offset !== '' ? { offset: count('offset', raw.offset, 0) } : {}),
  };
}
