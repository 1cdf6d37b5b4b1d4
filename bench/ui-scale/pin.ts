/**
 * CPU placement for the ui-scale bench. The goal measured is the server's own time per request;
 * in a deployment the browser runs on another machine, but here Chromium, the bench and the server
 * share two cores, and a page's requests queued behind Chromium's own layout and script work were
 * counted as server time (uiperf2 saw static chunks — no work at all — take 380 ms in the same
 * visits). With `--pin` the server gets the last CPU to itself and the bench and its browser the
 * others (`taskset`, inherited by every process and thread they start). Not the default: on two
 * cores the browser alone on one CPU paints later (LCP) and the server's GC threads lose the second
 * core, so the pinned run is a second view, not a better one. The placement is written into the
 * results either way.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';

export interface CpuPlan {
  /** `taskset -c` lists. */
  server: string;
  browser: string;
}

export function cpuPlan(wanted: boolean): CpuPlan | null {
  const cpus = os.cpus().length;
  if (!wanted || cpus < 2 || !fs.existsSync('/usr/bin/taskset')) return null;
  return { server: String(cpus - 1), browser: cpus === 2 ? '0' : `0-${cpus - 2}` };
}

/** Pins every thread of this process (and so whatever it starts next) to `cpus`. */
export function pinSelf(cpus: string): void {
  execFileSync('/usr/bin/taskset', ['-a', '-cp', cpus, String(process.pid)], { stdio: 'ignore' });
}

export function describePlan(plan: CpuPlan | null): string {
  return plan === null
    ? 'server, bench and browser sharing every CPU (unpinned)'
    : `server pinned to CPU ${plan.server}, bench and browser to CPU ${plan.browser} (taskset)`;
}
