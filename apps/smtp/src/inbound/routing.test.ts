import { describe, expect, it } from 'vitest';
import { parseInboundDomains } from '@petrel/config';
import { InboundRouter } from './routing.js';

const router = new InboundRouter({
  domains: parseInboundDomains('in.acme.test, Support.Example.org=team-b ,bücher.example'),
  bounceDomain: 'bounce.acme.test',
  defaultTeamId: 'team-default',
});

describe('InboundRouter', () => {
  it('sends a receiving domain to its team, the default team when none is named', () => {
    expect(router.route('hello@in.acme.test')).toEqual({ kind: 'receive', teamId: 'team-default' });
    expect(router.route('Help@SUPPORT.example.ORG')).toEqual({ kind: 'receive', teamId: 'team-b' });
    expect(router.route('a@xn--bcher-kva.example')).toEqual({ kind: 'receive', teamId: 'team-default' });
    expect(router.route('a@BÜCHER.example')).toEqual({ kind: 'receive', teamId: 'team-default' });
  });

  it('sends any address at the bounce domain to the bounce processor', () => {
    expect(router.route('bounces+0190b7c2-5a3e-7d41-9f2a-1c2d3e4f5a6b@bounce.acme.test')).toEqual({
      kind: 'bounce',
    });
    expect(router.route('fbl@Bounce.Acme.Test')).toEqual({ kind: 'bounce' });
  });

  it('takes nothing else: other domains, subdomains, parents, malformed addresses', () => {
    for (const a of ['x@example.com', 'x@sub.in.acme.test', 'x@acme.test', 'no-at', '@in.acme.test', 'x@']) {
      expect(router.route(a)).toBeNull();
    }
    expect(router.teamIds()).toEqual(['team-default', 'team-b']);
  });
});
