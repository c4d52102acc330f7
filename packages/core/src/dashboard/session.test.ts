import { describe, expect, it } from 'vitest';
import {
  checkSession,
  csrfMatches,
  openSessionCookie,
  sessionCookieValue,
  signIn,
  signOut,
  type DashboardSession,
  type DashboardSessionPorts,
} from './session.js';

const SECRET = 'a-secret-of-at-least-thirty-two-characters';
const HOUR = 3_600_000;

function ports(now = 1_000_000) {
  const stored = new Map<string, DashboardSession>();
  const liveKeys = new Map<string, string>([['t1:k-full', 'Production']]);
  let n = 0;
  const clock = { t: now, now: () => clock.t };
  const p: DashboardSessionPorts = {
    keys: {
      authenticate: async (token) =>
        token === 'full'
          ? { teamId: 't1', keyId: 'k-full', permission: 'full_access' }
          : token === 'sending'
            ? { teamId: 't1', keyId: 'k-send', permission: 'sending_access' }
            : null,
    },
    sessions: {
      create: async (s) => void stored.set(`${s.teamId}:${s.id}`, s),
      get: async (t, id) => {
        const s = stored.get(`${t}:${id}`);
        if (!s) return null;
        const name = liveKeys.get(`${t}:${s.keyId}`);
        return name === undefined ? null : { ...s, keyName: name };
      },
      delete: async (t, id) => void stored.delete(`${t}:${id}`),
      keyName: async (t, k) => liveKeys.get(`${t}:${k}`) ?? null,
    },
    clock,
    randomToken: () => `token-${++n}`,
    secret: SECRET,
    ttlMs: 8 * HOUR,
  };
  return { p, stored, liveKeys, clock };
}

describe('signIn', () => {
  it.each([
    ['a full_access key', 'full', { ok: true }],
    ['a sending_access key', 'sending', { ok: false, reason: 'not_full_access' }],
    ['an unknown key', 'nope', { ok: false, reason: 'unknown_key' }],
  ])('%s', async (_what, key, expected) => {
    const { p, stored } = ports();
    const r = await signIn(key, p);
    expect(r).toMatchObject(expected);
    expect(stored.size).toBe(r.ok ? 1 : 0);
  });

  it('makes a session of the key, expiring ttl later, with a CSRF token apart from its id', async () => {
    const { p } = ports(5_000);
    const r = await signIn('full', p);
    if (!r.ok) throw new Error('refused');
    expect(r.session).toEqual({
      id: 'token-1',
      teamId: 't1',
      keyId: 'k-full',
      keyName: 'Production',
      csrfToken: 'token-2',
      createdMs: 5_000,
      expiresMs: 5_000 + 8 * HOUR,
    });
    expect(openSessionCookie(r.cookie, SECRET)).toEqual({ teamId: 't1', sessionId: 'token-1' });
    expect(r.cookie).not.toContain('full');
  });
});

describe('openSessionCookie', () => {
  const good = sessionCookieValue({ teamId: 't1', id: 's1' }, SECRET);
  it.each([
    ['the signed value', good, { teamId: 't1', sessionId: 's1' }],
    ['another key', sessionCookieValue({ teamId: 't1', id: 's1' }, `${SECRET}x`), null],
    [
      'a changed payload',
      `${Buffer.from('{"t":"t2","s":"s1"}').toString('base64url')}.${good.split('.')[1]}`,
      null,
    ],
    ['a changed signature', `${good.slice(0, -1)}${good.endsWith('A') ? 'B' : 'A'}`, null],
    ['no signature', good.split('.')[0]!, null],
    ['empty', '', null],
    ['garbage', '%%%.%%%', null],
    ['an empty team', sessionCookieValue({ teamId: '', id: 's1' }, SECRET), null],
  ])('%s', (_what, cookie, expected) => {
    expect(openSessionCookie(cookie, SECRET)).toEqual(expected);
  });
});

describe('checkSession', () => {
  type Case = [
    string,
    {
      method: string;
      csrf?: string;
      cookie?: 'good' | 'forged' | 'none';
      at?: number;
      revoke?: boolean;
      signOut?: boolean;
    },
    string,
  ];
  const cases: Case[] = [
    ['GET with the cookie', { method: 'GET' }, 'ok'],
    ['HEAD needs no token', { method: 'HEAD' }, 'ok'],
    ['POST with the token', { method: 'POST', csrf: 'token-2' }, 'ok'],
    ['DELETE with the token', { method: 'delete', csrf: 'token-2' }, 'ok'],
    ['POST without the token', { method: 'POST' }, 'csrf'],
    ['PATCH with a wrong token', { method: 'PATCH', csrf: 'token-3' }, 'csrf'],
    ['PUT with the session id as token', { method: 'PUT', csrf: 'token-1' }, 'csrf'],
    ['no cookie', { method: 'GET', cookie: 'none' }, 'no_session'],
    ['a forged cookie', { method: 'GET', cookie: 'forged' }, 'no_session'],
    ['a second before expiry', { method: 'GET', at: 8 * HOUR - 1_000 }, 'ok'],
    ['at expiry', { method: 'GET', at: 8 * HOUR }, 'expired'],
    ['after the key is revoked', { method: 'GET', revoke: true }, 'no_session'],
    ['after sign-out', { method: 'GET', signOut: true }, 'no_session'],
  ];
  it.each(cases)('%s', async (_what, c, expected) => {
    const { p, liveKeys, clock } = ports(0);
    const r = await signIn('full', p);
    if (!r.ok) throw new Error('refused');
    const cookie =
      c.cookie === 'none'
        ? undefined
        : c.cookie === 'forged'
          ? sessionCookieValue({ teamId: 't1', id: 'token-1' }, 'another-secret-of-thirty-two-chars!!')
          : r.cookie;
    if (c.revoke) liveKeys.clear();
    if (c.signOut) await signOut(r.cookie, p);
    clock.t = c.at ?? 1_000;
    const check = await checkSession({ cookie, method: c.method, csrfHeader: c.csrf }, p);
    expect(check.ok ? 'ok' : check.reason).toBe(expected);
  });
});

describe('csrfMatches', () => {
  it.each([
    ['abc', 'abc', true],
    ['abd', 'abc', false],
    ['ab', 'abc', false],
    [undefined, 'abc', false],
    ['', '', false],
  ])('%s vs %s', (given, expected, result) => {
    expect(csrfMatches(given, expected)).toBe(result);
  });
});

describe('signOut', () => {
  it('ignores a missing or forged cookie', async () => {
    const { p, stored } = ports();
    await signIn('full', p);
    await signOut(undefined, p);
    await signOut('forged.cookie', p);
    expect(stored.size).toBe(1);
  });
});
