/**
 * The ui-scale section of bench/RESULTS.md, between its two markers (replaced on each run, appended
 * the first time), so the rest of the file — written by `npm run bench` and by hand — is kept.
 */
import fs from 'node:fs';
import type { UiScaleShape } from './generate';
import { GOALS } from './summary';

const START = '<!-- ui-scale:start -->';
const END = '<!-- ui-scale:end -->';

interface ReportHead {
  generatedAt: string;
  machine: { cpus: number; node: string; loadStart: string; loadEnd: string; placement?: string };
  shape: UiScaleShape;
  fleet: { generateMs: number; cached: boolean; upgradedFrom?: string | null; bigAgentRecords: number };
  reps: number;
  wallMs: number;
}

export function writeResultsSection(file: string, report: ReportHead, table: string): void {
  const s = report.shape;
  const section = [
    START,
    `## UI at fleet scale (issue 20 §5, \`npm run bench:ui-scale\`)`,
    '',
    `Run ${report.generatedAt}: ${s.agents} agents × ${s.syncs} syncs + one OpenClaw agent with ${s.bigMemories.toLocaleString('en')} memories ` +
      `(${report.fleet.bigAgentRecords.toLocaleString('en')} live at the end) × ${s.bigSyncs.toLocaleString('en')} syncs; generated in ` +
      `${(report.fleet.generateMs / 1000).toFixed(0)} s${report.fleet.cached ? ' (an earlier run; taken from the cache this time)' : ''}` +
      `${report.fleet.upgradedFrom ? `, then migrated to this schema from the cache entry ${report.fleet.upgradedFrom} (the upgrade a data directory gets)` : ''}. ` +
      `Production build served by \`lineage serve\`, Debian's Chromium at 1440×900, a fresh browser context per visit, one warm-up visit then ${report.reps} measured per page. ` +
      `Load average ${report.machine.loadStart} at the start, ${report.machine.loadEnd} at the end, on ${report.machine.cpus} cores${report.machine.placement ? `; ${report.machine.placement}` : ''}.`,
    '',
    `Goals: every data request's server time p95 < ${GOALS.serverP95Ms} ms (the server's own time, arrival → response finished, from LINEAGE_REQUEST_TIMING_LOG: ` +
      'the document, its RSC fetches and every /api request of the visit); largest contentful paint p95 < ' +
      `${GOALS.lcpMs} ms (PerformanceObserver); ≤ ${GOALS.domElements} DOM elements once the page has settled. See bench/results-ui-scale.json for every request kind.`,
    '',
    table,
    END,
  ].join('\n');
  const text = fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : '';
  const a = text.indexOf(START);
  const b = text.indexOf(END);
  const next = a >= 0 && b > a ? `${text.slice(0, a)}${section}${text.slice(b + END.length)}` : `${text.trimEnd()}\n\n${section}\n`;
  fs.writeFileSync(file, next);
}
