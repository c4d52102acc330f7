import { describe, expect, it } from 'vitest';
import { ConfigError, directCareEnv, loadConfig } from './index.js';

const load = (env: Record<string, string>) => loadConfig(directCareEnv, env);

/** The message of the ConfigError these variables make. */
const refusal = (env: Record<string, string>): string => {
  const error = (() => {
    try {
      return load(env) && undefined;
    } catch (err) {
      return err;
    }
  })();
  expect(error).toBeInstanceOf(ConfigError);
  return (error as Error).message;
};

describe('direct delivery care settings', () => {
  it('defaults: MTA-STS and TLS-RPT on, no pools, the default warm-up schedule, 24 h days', () => {
    const c = load({});
    expect(c).toMatchObject({
      MTA_STS: true,
      MTA_STS_HTTPS_PORT: 443,
      TLS_RPT: true,
      TLS_RPT_DAY_S: 86_400,
      WARMUP_DAY_S: 86_400,
      SENDING_POOLS: [],
    });
    expect(c.WARMUP_SCHEDULE).toBeUndefined();
  });

  it('reads SENDING_POOLS as named pools with addresses, teams and domains', () => {
    const c = load({
      SENDING_POOLS: JSON.stringify({
        bulk: { addresses: ['192.0.2.10', '2001:db8::10'], teams: ['team_1'] },
        default: { addresses: ['192.0.2.1'], domains: ['acme.com'] },
      }),
    });
    expect(c.SENDING_POOLS).toEqual([
      { name: 'bulk', addresses: ['192.0.2.10', '2001:db8::10'], teams: ['team_1'], domains: [] },
      { name: 'default', addresses: ['192.0.2.1'], teams: [], domains: ['acme.com'] },
    ]);
  });

  it('names the variable and the rule when SENDING_POOLS is wrong', () => {
    expect(refusal({ SENDING_POOLS: '{bulk:' })).toMatch(/SENDING_POOLS: must be JSON/);
    expect(refusal({ SENDING_POOLS: '{"bulk": {"addresses": ["mta.example.com"]}}' })).toMatch(
      /SENDING_POOLS: bulk\.addresses\.0: must be an IPv4 or IPv6 address/,
    );
    expect(refusal({ SENDING_POOLS: '{"bulk": {"addresses": []}}' })).toMatch(
      /SENDING_POOLS: bulk\.addresses: must list at least one local address/,
    );
  });

  it('reads WARMUP_SCHEDULE as daily caps, `off` as none, and refuses anything else', () => {
    expect(load({ WARMUP_SCHEDULE: '10, 20,40' }).WARMUP_SCHEDULE).toEqual([10, 20, 40]);
    expect(load({ WARMUP_SCHEDULE: 'off' }).WARMUP_SCHEDULE).toEqual([]);
    expect(refusal({ WARMUP_SCHEDULE: '10,lots' })).toMatch(
      /WARMUP_SCHEDULE: must be comma-separated whole numbers/,
    );
  });
});
