import { describe, expect, it } from 'vitest';
import type { DomainRecordSet } from '@petrel/contracts';
import { emailContent } from '@petrel/testing';
import { checkSendingDomain } from './check-sending-domain.js';
import { prepareWith, type StageContext } from './stage.js';

const ctx: StageContext = { teamId: 'team', index: 0, batch: false };

function domain(name: string, verified: boolean, id = `id-${name}`): DomainRecordSet {
  const status = verified ? 'verified' : 'failed';
  return {
    id,
    name,
    region: 'us-east-1',
    custom_return_path: 'send',
    capabilities: { sending: 'enabled', receiving: 'disabled' },
    open_tracking: false,
    click_tracking: false,
    tls: 'opportunistic',
    tracking_subdomain: null,
    dkim: [{ selector: 'petrel', algorithm: 'rsa-sha256', publicKey: 'p' }],
    checks: { 'dkim:petrel': status, 'spf:mx': 'verified', 'spf:txt': 'verified' },
    status,
    created_at: '',
    updated_at: '',
    checked_at: null,
  };
}

function lookup(...domains: DomainRecordSet[]) {
  const calls: string[] = [];
  return {
    calls,
    byName: async (_team: string, name: string) => {
      calls.push(name);
      return domains.find((d) => d.name === name) ?? null;
    },
  };
}

const from = (f: string) => emailContent({ from: f });

describe('checkSendingDomain', () => {
  it('off and no key restriction: reads nothing', async () => {
    const domains = lookup();
    const stage = checkSendingDomain({ domains, enforce: false });
    expect(await stage(from('a@nowhere.test'), ctx)).toEqual({ email: from('a@nowhere.test') });
    expect(domains.calls).toEqual([]);
  });

  it('enforced: a verified domain passes (case and display name aside), others get 403', async () => {
    const stage = checkSendingDomain({
      domains: lookup(domain('ok.test', true), domain('bad.test', false)),
      enforce: true,
    });
    expect(await stage(from('Ada <ada@OK.test>'), ctx)).toHaveProperty('email');
    expect(await stage(from('ada@bad.test'), ctx)).toEqual({
      refused: {
        name: 'validation_error',
        status: 403,
        message:
          'The bad.test domain is not verified. Please add and verify your domain (POST /domains, then POST /domains/:id/verify).',
      },
    });
    expect(await stage(from('ada@sub.ok.test'), ctx)).toMatchObject({ refused: { status: 403 } });
    expect(await stage(from('ada@unknown.test'), ctx)).toMatchObject({ refused: { status: 403 } });
  });

  it('a domain-restricted key sends from its domain only, enforcement on or off', async () => {
    const stage = checkSendingDomain({
      domains: lookup(domain('mine.test', false), domain('other.test', true)),
      enforce: false,
    });
    const keyed = { ...ctx, keyDomainId: 'id-mine.test' };
    expect(await stage(from('a@mine.test'), keyed)).toHaveProperty('email');
    expect(await stage(from('a@other.test'), { ...keyed, batch: true, index: 3 })).toEqual({
      refused: {
        name: 'validation_error',
        status: 403,
        message:
          'emails[3].from: this API key may only send from the domain it is restricted to, not other.test',
      },
    });
  });

  it('reuses a verified lookup within a request, never a refusal', async () => {
    let t = 0;
    const domains = lookup(domain('ok.test', true));
    const stage = checkSendingDomain({ domains, enforce: true }, { now: () => t });
    await stage(from('a@ok.test'), ctx);
    await stage(from('b@ok.test'), ctx);
    await stage(from('a@no.test'), ctx);
    await stage(from('b@no.test'), ctx);
    expect(domains.calls).toEqual(['ok.test', 'no.test', 'no.test']);
    t = 1_000;
    await stage(from('a@ok.test'), ctx);
    expect(domains.calls).toHaveLength(4);
  });

  it('prepareWith hands the key scope to the stage and the 403 to the caller', async () => {
    const preparer = prepareWith([
      checkSendingDomain({ domains: lookup(domain('mine.test', true)), enforce: false }),
    ]);
    const res = await preparer.prepare('team', [{ index: 0, email: from('a@else.test') }], 'single', {
      domainId: 'id-mine.test',
    });
    expect(res.errors).toEqual([
      expect.objectContaining({ index: 0, status: 403, name: 'validation_error' }),
    ]);
  });

  describe('identity headers of a domain-restricted key (Sender, Resent-From, Resent-Sender)', () => {
    const stage = checkSendingDomain({
      domains: lookup(domain('mine.test', false), domain('other.test', true)),
      enforce: false,
    });
    const keyed = { ...ctx, keyDomainId: 'id-mine.test' };
    const headed = (headers: Record<string, string>) => emailContent({ from: 'a@mine.test', headers });

    it.each([
      ['Sender', 'ops@other.test', 'headers.Sender'],
      ['sender', 'Ops <ops@other.test>', 'headers.sender'],
      ['Resent-From', 'a@mine.test, "Doe, J" <j@other.test>', 'headers["Resent-From"]'],
      ['RESENT-SENDER', 'x@OTHER.test', 'headers["RESENT-SENDER"]'],
    ])('refuses %s: %s with 403 naming the header', async (name, value, field) => {
      expect(await stage(headed({ [name]: value }), keyed)).toEqual({
        refused: {
          name: 'validation_error',
          status: 403,
          message: `${field}: this API key may only send from the domain it is restricted to, not other.test`,
        },
      });
    });

    it.each([
      'undisclosed:;',
      'a@mine.test (comment)',
      '"unterminated <a@mine.test>',
      'a@mine.test,',
      'nobody',
    ])('refuses a value it cannot read as addresses: %j', async (value) => {
      expect(await stage(headed({ Sender: value }), keyed)).toMatchObject({
        refused: {
          status: 403,
          message: expect.stringMatching(
            /^headers\.Sender: this API key may only send from the domain it is restricted to; /,
          ),
        },
      });
    });

    it('passes headers on the key domain, and any header for an unrestricted key', async () => {
      const ok = headed({
        Sender: 'Ops <ops@mine.test>',
        'Resent-From': '"Doe, J" <j@MINE.test>, k@mine.test',
        'Resent-Sender': 'r@mine.test',
        'X-Other': 'x@other.test',
      });
      expect(await stage(ok, keyed)).toEqual({ email: ok });
      const foreign = headed({ Sender: 'ops@other.test' });
      expect(await stage(foreign, ctx)).toEqual({ email: foreign });
    });

    it('names the email of a batch', async () => {
      expect(
        await stage(headed({ Sender: 'o@other.test' }), { ...keyed, batch: true, index: 2 }),
      ).toMatchObject({
        refused: { message: expect.stringMatching(/^emails\[2\]\.headers\.Sender: /) },
      });
    });
  });
});
