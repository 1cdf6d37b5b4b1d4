/** Query-parameter parsing shared by the views (browser) and the pages' server renders: plain functions. */

/** A non-negative integer from a query parameter, else null. */
export function intParam(value: string | null): number | null {
  if (value === null || !/^\d+$/.test(value)) return null;
  return Number(value);
}
