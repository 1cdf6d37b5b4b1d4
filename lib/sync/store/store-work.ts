/**
 * The half of a store sync needed once a file changed (the plan, the reconcile, the next state's
 * files and their write): sync-store.ts imports it on first use, so that an idle `lineage sync`
 * loads none of it (nor the archive code it brings: the writers, yazl, yauzl, fflate).
 */
export { nextRecordFiles } from './next-files';
export { planFiles, plannedSlots } from './plan';
export { reconcileKnown } from './reconcile-known';
export { prepareState } from './write-state';
