import { describe, expect, it } from 'vitest';
import { rovingTarget } from './roving';

describe('rovingTarget', () => {
  it('moves to the neighbour and wraps around', () => {
    expect(rovingTarget('ArrowRight', 0, 3)).toBe(1);
    expect(rovingTarget('ArrowRight', 2, 3)).toBe(0);
    expect(rovingTarget('ArrowLeft', 0, 3)).toBe(2);
    expect(rovingTarget('Home', 2, 3)).toBe(0);
    expect(rovingTarget('End', 0, 3)).toBe(2);
  });

  it('ignores other keys', () => {
    expect(rovingTarget('Enter', 1, 3)).toBeNull();
    expect(rovingTarget('ArrowDown', 1, 3)).toBeNull();
  });
});
