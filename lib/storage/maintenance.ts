/** Periodic sweeps of a serving process: each runs now and then every interval, failures logged, never thrown. */
const SWEEP_INTERVAL_MS = 10 * 60 * 1000;

export function startSweeps(
  p: { log: (line: string) => void; clock: () => Date; intervalMs?: number },
  sweeps: [name: string, run: (now: Date) => Promise<unknown>][],
): { stop(): Promise<void> } {
  const tick = () => {
    for (const [name, run] of sweeps) void run(p.clock()).catch((err) => p.log(`${name} failed: ${String(err)}`));
  };
  tick();
  const timer = setInterval(tick, p.intervalMs ?? SWEEP_INTERVAL_MS);
  timer.unref();
  return { stop: async () => clearInterval(timer) };
}
