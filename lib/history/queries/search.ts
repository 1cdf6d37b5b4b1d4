/**
 * "When did this fact first appear, and what became of it": the search engine of
 * lib/history/search, under the name the API, the dashboard and the CLI call.
 */
export { searchHistory as searchFirstAppearance } from '../search/engine';
export type { AgentFactStatus, Appearance, SearchResult } from '../search/engine';
export type { FactStatus } from '../search/status';
export type { Suggestion } from '../search/suggest';
