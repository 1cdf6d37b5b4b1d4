/**
 * Mulberry32: a small, fast, seeded PRNG returning floats in [0, 1). Shared by the demo fleet, the
 * benchmarks' history generator and the test generators, so every scripted history is reproducible.
 */
export function prng(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}
