/** The one sentence for a sequence an agent has not synced yet: the compare API, its page and the page's 404 say it alike. */
export function sequenceMissingWords(p: { seq: number | string; agentName: string; latest: number }): string {
  return `Sequence #${p.seq} does not exist: the sequences of ${p.agentName} run from 0 to ${p.latest}.`;
}

/** Whether a page's query-string sequence (`?seq=`, `?from=`, `?to=`) names one the agent has not synced: the page is a 404. */
export function isPastLatest(value: string | string[] | null | undefined, latest: number | null): boolean {
  return typeof value === 'string' && /^\d+$/.test(value) && (latest === null || Number(value) > latest);
}
