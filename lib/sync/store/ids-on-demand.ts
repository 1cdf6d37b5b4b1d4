/**
 * Whether `id` is one of the ids `list` gives, or one `outside` accepts: the set is made on the first
 * question only. A reconcile asks about the ids its creates would keep, rarely — most never ask.
 */
export function idsOnDemand(list: (add: (id: string) => void) => void, outside?: (id: string) => boolean): (id: string) => boolean {
  let ids: Set<string> | null = null;
  return (id) => {
    if (ids === null) {
      const made = new Set<string>();
      list((one) => made.add(one));
      ids = made;
    }
    return ids.has(id) || (outside !== undefined && outside(id));
  };
}
