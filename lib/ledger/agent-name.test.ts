import { describe, expect, it } from 'vitest';
import { AGENT_NAME_RULE, agentNameProblem, registrableName } from './agent-name';

describe('agentNameProblem', () => {
  it('accepts one-line names with something visible, up to 256 characters', () => {
    for (const name of ['a', 'Atlas ops', ' x ', 'مساعد', 'invoice\u202egpj', '😀'.repeat(256)]) expect(agentNameProblem(name), name).toBeNull();
  });

  it('says what is wrong, then what a name must be', () => {
    expect(agentNameProblem('')).toBe(`agent name is empty: ${AGENT_NAME_RULE}`);
    expect(agentNameProblem('\u00a0\u200b')).toBe(`agent name is blank (nothing in it is visible): ${AGENT_NAME_RULE}`);
    expect(agentNameProblem('ab\ncd')).toBe(`agent name holds the control character U+000A at character 3: ${AGENT_NAME_RULE}`);
    expect(agentNameProblem('x'.repeat(300))).toBe(`agent name is 300 characters long: ${AGENT_NAME_RULE}`);
    expect(agentNameProblem(7)).toBe(`agent name must be a string: ${AGENT_NAME_RULE}`);
  });
});


describe('registrableName', () => {
  it('keeps a name the rule takes, and makes one of a name it refuses', () => {
    expect(registrableName('Atlas ops', 'x')).toBe('Atlas ops');
    expect(registrableName(' x ', 'f')).toBe(' x ');
    expect(registrableName('Atlas\tops\u0085 desk', 'f')).toBe('Atlas ops desk');
    expect(registrableName(`${'é'.repeat(250)}\t${'z'.repeat(20)}`, 'f')).toBe(`${'é'.repeat(250)} zzzzz`);
    expect(registrableName('\u200b\t\u200b', 'openclaw agent')).toBe('openclaw agent');
    expect(registrableName('', 'openclaw agent')).toBe('openclaw agent');
    for (const name of ['a\u2028b', 'x'.repeat(1000), '\u0001\u0002 ok']) expect(agentNameProblem(registrableName(name, 'f'))).toBeNull();
  });
});
