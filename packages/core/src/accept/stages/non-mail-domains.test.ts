import { describe, expect, it } from 'vitest';
import { emailContent } from '@petrel/testing';
import { refuseNonMailDomains, reservedMailDomain } from './non-mail-domains.js';

const single = { teamId: 't1', index: 0, batch: false };

describe('reservedMailDomain (RFC 2606, RFC 6761)', () => {
  it.each([
    ['example.com', 'example.com'],
    ['EXAMPLE.org.', 'example.org'],
    ['mail.example.net', 'example.net'],
    ['acme.test', 'test'],
    ['docs.example', 'example'],
    ['nowhere.invalid', 'invalid'],
    ['localhost', 'localhost'],
    ['app.localhost', 'localhost'],
  ])('%s is reserved (%s)', (domain, name) => {
    expect(reservedMailDomain(domain)).toBe(name);
  });

  it.each(['gmail.com', 'example.co', 'myexample.com', 'example.com.au', 'testing.io', 'resend.dev'])(
    '%s is not',
    (domain) => {
      expect(reservedMailDomain(domain)).toBeNull();
    },
  );
});

describe('refuseNonMailDomains stage', () => {
  const stage = refuseNonMailDomains({ simulatorDomain: 'sim.petrel.test' });

  it('refuses a reserved recipient in to, cc or bcc, naming the field and the address', async () => {
    expect(await stage(emailContent({ to: ['Ada <ada@example.com>'] }), single)).toEqual({
      refused: {
        message:
          'to: ada@example.com is at a domain reserved for tests and documentation (example.com, RFC 2606), which receives no mail; to test sending, use delivered@resend.dev',
      },
    });
    const bcc = await stage(emailContent({ to: ['bob@real.dev'], bcc: ['x@qa.test'] }), {
      ...single,
      batch: true,
      index: 2,
    });
    expect(bcc).toMatchObject({
      refused: { message: expect.stringMatching(/^emails\[2\]\.bcc: x@qa\.test .*\(\.test, /) },
    });
  });

  it('lets real domains, resend.dev and the simulator domain (even under .test) through', async () => {
    const email = emailContent({
      to: ['bob@real.dev', 'delivered@resend.dev'],
      cc: ['bounced+x@SIM.petrel.test'],
    });
    expect(await stage(email, single)).toEqual({ email });
  });
});
