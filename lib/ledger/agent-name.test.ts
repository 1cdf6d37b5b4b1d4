import { describe, expect, it } from 'vitest';
import { AGENT_NAME_RULE, agentNameProblem } from './agent-name';

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

