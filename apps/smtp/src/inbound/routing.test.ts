import { describe, expect, it } from 'vitest';
import { cachedReturnPathDomains } from './routing.js';

describe('cachedReturnPathDomains', () => {
  it('reads each domain once within the TTL, negative answers included', async () => {
    const reads: string[] = [];
    const port = cachedReturnPathDomains({
      returnPathTeam: async (d) => {
        reads.push(d);
        return d === 'send.acme.test' ? 'team-a' : null;
      },
    });
    for (let i = 0; i < 3; i++) {
      expect(await port.teamOf('send.acme.test')).toBe('team-a');
      expect(await port.teamOf('unknown.test')).toBeNull();
    }
    expect(reads).toEqual(['send.acme.test', 'unknown.test']);
  });

  it('concurrent lookups of one domain share one read', async () => {
    let reads = 0;
    const port = cachedReturnPathDomains({ returnPathTeam: async () => (reads++, null) });
    expect(await Promise.all([port.teamOf('x.test'), port.teamOf('x.test'), port.teamOf('x.test')])).toEqual([
      null,
      null,
      null,
    ]);
    expect(reads).toBe(1);
  });
});
