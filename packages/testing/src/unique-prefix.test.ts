import { describe, expect, it } from 'vitest';
import { uniquePrefix } from './unique-prefix.js';

describe('uniquePrefix', () => {
  it('is short, safe for queue names and unique', () => {
    const prefixes = Array.from({ length: 1000 }, () => uniquePrefix('Deliver Email: R8!'));
    expect(new Set(prefixes).size).toBe(1000);
    for (const prefix of prefixes) expect(prefix).toMatch(/^t-deliver-email-r8-[a-z0-9]{6,}$/);
    expect(uniquePrefix('').startsWith('t-test-')).toBe(true);
  });
});
