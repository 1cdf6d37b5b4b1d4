import { describe, expect, it } from 'vitest';
import { ECHO_MAX_CHARS, echoInput, echoPath } from './echo';

describe('echoInput', () => {
  it('repeats input of up to 80 characters exactly', () => {
    for (const text of ['', 'not-a-uuid', '3f1b2c4d-0000-4000-8000-00000000000a', 'x'.repeat(ECHO_MAX_CHARS)]) expect(echoInput(text)).toBe(text);
  });

  it('cuts longer input to its first 80 characters and says how many more there were', () => {
    expect(echoInput('q'.repeat(10_000))).toBe(`${'q'.repeat(80)}… (9920 more characters)`);
    expect(echoInput('q'.repeat(81))).toBe(`${'q'.repeat(80)}… (1 more character)`);
  });

  it('never keeps half of a surrogate pair', () => {
    const text = `${'a'.repeat(79)}😀${'b'.repeat(10)}`;
    expect(echoInput(text)).toBe(`${'a'.repeat(79)}… (12 more characters)`);
  });

  it('gives a path 200 characters', () => {
    const route = `/v1/agents/${'a'.repeat(36)}/snapshot/upload/${'b'.repeat(36)}/confirm`;
    expect(echoPath(route)).toBe(route);
    expect(echoPath(`/${'p'.repeat(300)}`)).toBe(`/${'p'.repeat(199)}… (101 more characters)`);
  });
});
