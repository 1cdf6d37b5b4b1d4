import type { DemoCalendar, DemoClock, Prng } from './clock';
import type { SyncDriver } from './driver';

/** What a scripted agent life gets: where its workspace goes, the calendar, clock, chance and the sync driver. */
export interface LifeContext {
  workspacesDir: string;
  calendar: DemoCalendar;
  clock: DemoClock;
  prng: Prng;
  driver: SyncDriver;
}
