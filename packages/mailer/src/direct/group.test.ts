import { describe, expect, it } from 'vitest';
import { groupByDomain } from './group.js';

describe('groupByDomain', () => {
  it('groups recipients by lower-cased domain, in first-seen order, keeping each address as given', () => {
    expect(
      groupByDomain(['a@one.test', 'b@Two.test', 'c@ONE.test', 'd@xn--bcher-kva.test', 'e@two.test']),
    ).toEqual([
      { domain: 'one.test', recipients: ['a@one.test', 'c@ONE.test'] },
      { domain: 'two.test', recipients: ['b@Two.test', 'e@two.test'] },
      { domain: 'xn--bcher-kva.test', recipients: ['d@xn--bcher-kva.test'] },
    ]);
  });

  it('splits at the last @ (a quoted local part may hold one)', () => {
    expect(groupByDomain(['"a@b"@c.test'])).toEqual([{ domain: 'c.test', recipients: ['"a@b"@c.test'] }]);
  });

  it('returns no group for no recipient', () => {
    expect(groupByDomain([])).toEqual([]);
  });
});
