import { describe, expect, it } from 'vitest';
import { bounceSuppresses } from './bounce-suppression.js';

describe('bounceSuppresses', () => {
  it.each([
    [550, '5.1.1', true],
    [550, '5.1.10', true],
    [550, '5.2.1', true],
    [550, '5.4.4', true],
    [550, undefined, true],
    [551, undefined, true],
    [553, undefined, true],
    [552, '5.2.2', false],
    [552, '5.3.4', false],
    [554, '5.7.1', false],
    [550, '5.7.1', false],
    [554, undefined, false],
    [552, undefined, false],
    [450, '4.1.1', false],
    [undefined, undefined, false],
  ] as const)('%s %s → %s', (code, enhanced, expected) => {
    expect(bounceSuppresses(code, enhanced)).toBe(expected);
  });
});
