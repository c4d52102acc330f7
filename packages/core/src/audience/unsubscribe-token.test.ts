import { describe, expect, it } from 'vitest';
import {
  UNSUBSCRIBE_TOKEN_TTL_S,
  signUnsubscribeToken,
  unsubscribeLinks,
  verifyUnsubscribeToken,
  type UnsubscribeClaims,
} from './unsubscribe-token.js';

const claims: UnsubscribeClaims = {
  teamId: 'team-1',
  emailId: '0190a6b2-7c3d-7000-8000-000000000001',
  recipient: 'Ada@Example.test',
  topicId: 'topic-1',
  expiresAt: 2_000_000_000,
};
const now = 1_900_000_000_000;

describe('unsubscribe tokens', () => {
  it('round-trips the claims', () => {
    const token = signUnsubscribeToken(claims, 'secret');
    expect(token).toMatch(/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/);
    expect(verifyUnsubscribeToken(token, 'secret', now)).toEqual({ ok: true, claims });
  });

  it('refuses a token signed with another secret', () => {
    expect(verifyUnsubscribeToken(signUnsubscribeToken(claims, 'other'), 'secret', now)).toEqual({
      ok: false,
      reason: 'invalid',
    });
  });

  it('refuses any changed byte of the payload or the signature', () => {
    const token = signUnsubscribeToken(claims, 'secret');
    const forged = signUnsubscribeToken({ ...claims, recipient: 'eve@example.test' }, 'secret');
    // the payload of one with the signature of another
    const spliced = `${forged.split('.')[0]}.${token.split('.')[1]}`;
    expect(verifyUnsubscribeToken(spliced, 'secret', now).ok).toBe(false);
    for (let i = 0; i < token.length; i += 7) {
      const c = token[i] === 'A' ? 'B' : 'A';
      const tampered = token.slice(0, i) + c + token.slice(i + 1);
      if (tampered === token) continue;
      expect(verifyUnsubscribeToken(tampered, 'secret', now).ok, `byte ${i}`).toBe(false);
    }
    for (const junk of ['', '.', 'abc', 'a.b', `${token}x`, '.'.repeat(5000)]) {
      expect(verifyUnsubscribeToken(junk, 'secret', now).ok).toBe(false);
    }
  });

  it('refuses an expired token', () => {
    const token = signUnsubscribeToken({ ...claims, expiresAt: 1_000 }, 'secret');
    expect(verifyUnsubscribeToken(token, 'secret', now)).toEqual({ ok: false, reason: 'expired' });
  });

  it('a link issued at a given time is the same whenever it is made, and lasts the TTL from then', () => {
    let clock = now;
    const links = unsubscribeLinks({
      secret: 'secret',
      publicUrl: 'https://petrel.test/',
      clock: { now: () => clock },
    });
    const { expiresAt: _x, ...who } = claims;
    const issuedAtMs = now - 3_600_000;
    const first = links.url({ ...who, issuedAtMs });
    clock += 5_000;
    expect(links.url({ ...who, issuedAtMs })).toBe(first);
    expect(first.startsWith('https://petrel.test/unsubscribe/')).toBe(true);
    const checked = verifyUnsubscribeToken(first.split('/').at(-1)!, 'secret', clock);
    expect(checked).toEqual({
      ok: true,
      claims: { ...who, expiresAt: Math.floor(issuedAtMs / 1000) + UNSUBSCRIBE_TOKEN_TTL_S },
    });
    // without an issue time: from now, so a later link differs
    expect(links.url(who)).not.toBe(links.url({ ...who, issuedAtMs }));
  });
});
