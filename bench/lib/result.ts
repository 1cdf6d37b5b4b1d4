/** One benchmark figure as printed in the final JSON line and written to results.json. */
export interface BenchResult {
  name: string;
  ours: number;
  peer: number | null;
  /** Ours ÷ peer, or peer ÷ ours for speedups; `direction` says which. */
  ratio: number | null;
  unit: string;
  /** What the ratio means and the goal, in words (e.g. "git time ÷ ours; goal ≥ 500"). */
  goal?: string;
  meets_goal?: boolean;
  note?: string;
}
