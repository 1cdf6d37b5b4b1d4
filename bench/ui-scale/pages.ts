/**
 * The pages the ui-scale bench opens, in one place, with ids from the generated fleet: the big
 * agent (50,000 memories, 2,000 syncs) wherever a page's cost grows with one agent's history, a
 * fleet agent for an ordinary agent page, and the search with a single token and a phrase from
 * the generator's prose (bench/history/text.ts).
 */
import type { UiScaleManifest } from './generate';

export interface BenchPage {
  name: string;
  url: string;
}

/** Ids looked up in the generated index (not derivable from the manifest alone). */
export interface PageIds {
  /** The big agent's record with the most versions. */
  hotRecordId: string;
  /** An old sequence of the big agent (a tenth of the way through its history). */
  oldSequence: number;
  /** The big agent's file with the most versions up to `oldSequence`. */
  oldFile: string;
}

export function benchPages(manifest: UiScaleManifest, ids: PageIds): BenchPage[] {
  const big = manifest.big.id;
  const fleetAgent = manifest.fleet[0]!.id;
  return [
    { name: 'home (fleet)', url: '/' },
    { name: 'agent overview (big agent)', url: `/agents/${big}` },
    { name: 'agent overview (fleet agent)', url: `/agents/${fleetAgent}` },
    { name: 'agent memories tab (big agent)', url: `/agents/${big}?tab=memories` },
    { name: 'agent changes tab (big agent)', url: `/agents/${big}?tab=changes` },
    { name: 'sequence #0 (big agent, every memory created)', url: `/agents/${big}/sequences/0` },
    { name: 'sequence, latest (big agent)', url: `/agents/${big}/sequences/${manifest.big.syncs - 1}` },
    { name: 'lineage (most versions)', url: `/agents/${big}/memories/${ids.hotRecordId}` },
    { name: 'workspace at latest (big agent)', url: `/agents/${big}/workspace` },
    { name: `workspace at #${ids.oldSequence} (big agent)`, url: `/agents/${big}/workspace?seq=${ids.oldSequence}` },
    // The past states of the Memories tab and of one file: every record's version at that sequence is worked out.
    { name: `agent memories tab at #${ids.oldSequence} (big agent)`, url: `/agents/${big}?tab=memories&at=${ids.oldSequence}` },
    { name: `a file at #${ids.oldSequence} (big agent)`, url: `/agents/${big}/workspace?seq=${ids.oldSequence}&file=${encodeURIComponent(ids.oldFile)}` },
    { name: `blame of that file at #${ids.oldSequence} (big agent)`, url: `/agents/${big}/workspace?seq=${ids.oldSequence}&file=${encodeURIComponent(ids.oldFile)}&view=blame` },
    // Two sequences of the timeline: the last day's syncs, and #old to the latest (thousands of memories changed).
    { name: 'compare, the last 8 syncs (big agent)', url: `/agents/${big}/compare?from=${manifest.big.syncs - 9}&to=${manifest.big.syncs - 1}` },
    { name: `compare #${ids.oldSequence} → latest (big agent)`, url: `/agents/${big}/compare?from=${ids.oldSequence}&to=${manifest.big.syncs - 1}` },
    { name: 'search, one token (redis)', url: `/search?q=${encodeURIComponent('redis')}` },
    { name: 'search, a phrase ("rolled back")', url: `/search?q=${encodeURIComponent('"rolled back"')}` },
    { name: 'sign-in page', url: '/login' },
  ];
}
