import { describe, expect, it } from 'vitest';
import { getAdapter } from './index';

describe('getAdapter', () => {
  it('returns the OpenClaw adapter', () => {
    expect(getAdapter('openclaw').runtime).toBe('openclaw');
  });
});
