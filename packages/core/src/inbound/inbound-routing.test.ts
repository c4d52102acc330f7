import { describe, expect, it } from 'vitest';
import { InboundRouter, type InboundRoute, type ReturnPathDomains } from './inbound-routing.js';

const asked: string[] = [];
const returnPaths: ReturnPathDomains = {
  teamOf: async (domain) => {
    asked.push(domain);
    return (
      { 'send.acme.test': 'team-a', 'bounce.brand.test': 'team-b', 'send.xn--bcher-kva.example': 'team-c' }[
        domain
      ] ?? null
    );
  },
};

const router = new InboundRouter({
  domains: [
    { domain: 'in.acme.test' },
    { domain: 'Support.Example.org', teamId: 'team-b' },
    { domain: 'bücher.example' },
    // a configured receiving domain that a team also registered as a return path: config wins
    { domain: 'send.brand.test', teamId: 'team-r' },
  ],
  bounceDomain: 'bounce.acme.test',
  defaultTeamId: 'team-default',
  returnPaths: {
    teamOf: async (d) => (d === 'send.brand.test' ? 'team-x' : returnPaths.teamOf(d)),
  },
});

const VERP = 'bounces+0190b7c2-5a3e-7d41-9f2a-1c2d3e4f5a6b';

describe('InboundRouter', () => {
  it.each<[string, InboundRoute | null]>([
    // receiving domains: the named team, else the default team; case and IDN folded
    ['hello@in.acme.test', { kind: 'receive', teamId: 'team-default' }],
    ['Help@SUPPORT.example.ORG', { kind: 'receive', teamId: 'team-b' }],
    ['a@xn--bcher-kva.example', { kind: 'receive', teamId: 'team-default' }],
    ['a@BÜCHER.example', { kind: 'receive', teamId: 'team-default' }],
    ['x@send.brand.test', { kind: 'receive', teamId: 'team-r' }],
    // the bounce domain: any local part
    [`${VERP}@bounce.acme.test`, { kind: 'bounce' }],
    ['fbl@Bounce.Acme.Test', { kind: 'bounce' }],
    // a team's return-path domain: any local part, scoped to the owning team
    [
      `${VERP}@send.acme.test`,
      { kind: 'bounce', returnPath: { domain: 'send.acme.test', teamId: 'team-a' } },
    ],
    [
      'postmaster@SEND.Acme.test',
      { kind: 'bounce', returnPath: { domain: 'send.acme.test', teamId: 'team-a' } },
    ],
    [
      `${VERP}@bounce.brand.test`,
      { kind: 'bounce', returnPath: { domain: 'bounce.brand.test', teamId: 'team-b' } },
    ],
    [
      'x@send.BÜCHER.example',
      { kind: 'bounce', returnPath: { domain: 'send.xn--bcher-kva.example', teamId: 'team-c' } },
    ],
    // nothing else: other domains, subdomains, parents, a sending domain itself, malformed
    ['x@example.com', null],
    ['x@sub.in.acme.test', null],
    ['x@acme.test', null],
    [`${VERP}@x.send.acme.test`, null],
    ['no-at', null],
    ['@in.acme.test', null],
    ['x@', null],
  ])('%s', async (address, route) => {
    expect(await router.route(address)).toEqual(route);
  });

  it('asks the return-path port only for domains neither configured nor malformed', async () => {
    asked.length = 0;
    for (const a of ['a@in.acme.test', 'b@bounce.acme.test', 'no-at', 'x@', 'c@Unknown.Test'])
      await router.route(a);
    expect(asked).toEqual(['unknown.test']);
  });

  it('without the port only BOUNCE_DOMAIN takes reports', async () => {
    const plain = new InboundRouter({ domains: [], bounceDomain: 'b.test', defaultTeamId: 't' });
    expect(await plain.route(`${VERP}@send.acme.test`)).toBeNull();
    expect(await plain.route('x@B.test')).toEqual({ kind: 'bounce' });
  });

  it('lists the teams the receiving domains name', () => {
    expect(router.teamIds()).toEqual(['team-default', 'team-b', 'team-r']);
  });
});

describe('InboundRouter: inboxes at teams’ verified domains', () => {
  const verified = { status: 'verified', receiving: 'enabled' };
  const inboxes: Record<string, { teamId: string; domain: { status: string; receiving: string } | null }> = {
    'support@acme.example': { teamId: 'team-a', domain: verified },
    'sales@xn--bcher-kva.example': { teamId: 'team-c', domain: verified },
    'pending@new.example': { teamId: 'team-a', domain: { status: 'pending', receiving: 'enabled' } },
    'off@acme2.example': { teamId: 'team-a', domain: { status: 'verified', receiving: 'disabled' } },
    'failed@acme3.example': { teamId: 'team-a', domain: { status: 'failed', receiving: 'enabled' } },
    'gone@acme4.example': { teamId: 'team-a', domain: null },
    // an inbox whose address a configured domain or a return path also serves: those win
    'desk@in.acme.test': { teamId: 'team-z', domain: verified },
    'desk@send.acme.test': { teamId: 'team-z', domain: verified },
  };
  const looked: string[] = [];
  const withInboxes = new InboundRouter({
    domains: [{ domain: 'in.acme.test' }],
    bounceDomain: 'bounce.acme.test',
    defaultTeamId: 'team-default',
    returnPaths,
    inboxes: {
      inboxAt: async (address) => {
        looked.push(address);
        return inboxes[address] ?? null;
      },
    },
  });

  it.each<[string, InboundRoute | null]>([
    // the inbox's own address, in any case, an IDN in either form
    ['support@acme.example', { kind: 'receive', teamId: 'team-a' }],
    ['Support@ACME.example', { kind: 'receive', teamId: 'team-a' }],
    ['sales@BÜCHER.example', { kind: 'receive', teamId: 'team-c' }],
    // another address of the same verified domain is not asked for
    ['someone@acme.example', null],
    // a domain not verified, with receiving off, failed or gone: nothing
    ['pending@new.example', null],
    ['off@acme2.example', null],
    ['failed@acme3.example', null],
    ['gone@acme4.example', null],
    // the operator's configuration and the reports come first
    ['desk@in.acme.test', { kind: 'receive', teamId: 'team-default' }],
    ['desk@send.acme.test', { kind: 'bounce', returnPath: { domain: 'send.acme.test', teamId: 'team-a' } }],
  ])('%s', async (address, route) => {
    expect(await withInboxes.route(address)).toEqual(route);
  });

  it('asks for the inbox by its mailbox key, and not for configured or report addresses', async () => {
    looked.length = 0;
    for (const a of ['desk@in.acme.test', 'x@bounce.acme.test', 'Sales@Bücher.Example', 'no-at'])
      await withInboxes.route(a);
    expect(looked).toEqual(['sales@xn--bcher-kva.example']);
  });
});
