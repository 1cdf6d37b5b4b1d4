import { describe, expect, it } from 'vitest';
import { getAdapter } from './index';

describe('getAdapter', () => {
  it('returns the OpenClaw adapter', () => {
    expect(getAdapter('openclaw').runtime).toBe('openclaw');
  });
});

describe('the SQLite-store adapters, loaded on first use', () => {
  it('forward every call, and have no exportSlots the wrapper would hide', async () => {
    const { zeroclawAdapter } = await import('./zeroclaw');
    const { hermesAdapter } = await import('./hermes');
    expect(zeroclawAdapter.exportSlots).toBeUndefined();
    expect(hermesAdapter.exportSlots).toBeUndefined();
    expect(getAdapter('zeroclaw').runtime).toBe('zeroclaw');
    // A call reaches the real module: a workspace without a brain.db holds no memory.
    expect(await getAdapter('zeroclaw').memoryPresent('/nonexistent-lineage-workspace')).toBe(false);
  });
});
