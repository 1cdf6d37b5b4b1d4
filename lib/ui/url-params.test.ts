import { expect, it } from 'vitest';
import { intParam, intParamProblem } from './url-params';

it('reads a whole number up to 2^53 − 1, and says what is wrong with anything else the address holds', () => {
  expect(intParam('0')).toBe(0);
  expect(intParam('007')).toBe(7);
  expect(intParam('9007199254740991')).toBe(9007199254740991);
  for (const bad of ['9007199254740993', '99999999999999999999', '1.5', '-0', '-1', '1e309', '0x10', ' 1', '١', '']) expect(intParam(bad), bad).toBeNull();
  expect(intParamProblem('seq', null)).toBeNull();
  expect(intParamProblem('seq', '')).toBeNull();
  expect(intParamProblem('seq', '3')).toBeNull();
  expect(intParamProblem('seq', '1.5')).toMatch(/^The address asks for seq=“1\.5”, which is not a whole number from 0 to 9007199254740991/);
  expect(intParamProblem('at', 'x'.repeat(10_000))).toMatch(/… \(9920 more characters\)/);
});
