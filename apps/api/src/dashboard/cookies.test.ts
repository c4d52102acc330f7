import type { Request, Response } from 'express';
import { describe, expect, it } from 'vitest';
import { clearSessionCookies, isHttps, readCookie, setSessionCookies } from './cookies.js';

const req = (headers: Record<string, string>, secure = false) => ({ headers, secure }) as unknown as Request;

describe('readCookie', () => {
  it.each([
    ['petrel_session=abc', 'abc'],
    ['a=1; petrel_session=abc.def; b=2', 'abc.def'],
    ['petrel_session="quoted"', 'quoted'],
    ['xpetrel_session=no; petrel_session=yes', 'yes'],
    ['petrel_session=%E0%A4%A', undefined],
    ['other=1', undefined],
    ['', undefined],
  ])('%j', (header, value) => {
    expect(readCookie(req({ cookie: header }), 'petrel_session')).toBe(value);
  });
});

describe('isHttps', () => {
  it.each([
    [{}, false, undefined, false],
    [{}, true, undefined, true],
    [{ 'x-forwarded-proto': 'https' }, false, undefined, true],
    [{ 'x-forwarded-proto': 'https, http' }, false, undefined, true],
    [{ 'x-forwarded-proto': 'http' }, false, undefined, false],
    [{}, false, 'https://mail.example.com', true],
    [{}, false, 'http://localhost:3000', false],
  ])('%j secure=%s PUBLIC_URL=%s', (headers, secure, publicUrl, expected) => {
    expect(isHttps(req(headers as Record<string, string>, secure), publicUrl)).toBe(expected);
  });
});

describe('session cookies', () => {
  function capture() {
    const set: string[] = [];
    const res = { append: (_name: string, v: string) => set.push(v) } as unknown as Response;
    return { res, set };
  }

  it('sets an httpOnly session cookie and a readable CSRF cookie, SameSite=Strict, Secure over https', () => {
    const { res, set } = capture();
    setSessionCookies(res, { session: 'a.b', csrf: 't', maxAgeS: 60, secure: true });
    expect(set).toEqual([
      'petrel_session=a.b; Max-Age=60; Path=/; HttpOnly; Secure; SameSite=Strict',
      'petrel_csrf=t; Max-Age=60; Path=/; Secure; SameSite=Strict',
    ]);
  });

  it('clears both (Max-Age=0), without Secure over http', () => {
    const { res, set } = capture();
    clearSessionCookies(res, false);
    expect(set).toEqual([
      'petrel_session=; Max-Age=0; Path=/; HttpOnly; SameSite=Strict',
      'petrel_csrf=; Max-Age=0; Path=/; SameSite=Strict',
    ]);
  });
});
