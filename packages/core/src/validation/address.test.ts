import { describe, expect, it } from 'vitest';
import { parseAddress } from './address.js';

const accepts = (input: string) => {
  const r = parseAddress(input);
  if (!r.ok) throw new Error(`expected ${JSON.stringify(input)} to parse: ${r.reason}`);
  return r;
};
const refuses = (input: string) => {
  const r = parseAddress(input);
  if (r.ok) throw new Error(`expected ${JSON.stringify(input)} to be refused`);
  return r.reason;
};

describe('parseAddress', () => {
  it('accepts a bare address', () => {
    expect(accepts('jane@example.com')).toEqual({ ok: true, address: 'jane@example.com' });
    expect(accepts("o'brien+tag.x@mail.example.co.uk").address).toBe("o'brien+tag.x@mail.example.co.uk");
    expect(accepts('  a@b.io\t').address).toBe('a@b.io');
  });

  it('accepts the display form, bare or quoted', () => {
    expect(accepts('Jane Doe <jane@example.com>')).toEqual({
      ok: true,
      name: 'Jane Doe',
      address: 'jane@example.com',
    });
    expect(accepts('"Doe, John" <john@example.com>')).toEqual({
      ok: true,
      name: 'Doe, John',
      address: 'john@example.com',
    });
    expect(accepts('"Say \\"hi\\" <now>" <x@example.com>').name).toBe('Say "hi" <now>');
    expect(accepts('John Q. Public <jq@example.com>').name).toBe('John Q. Public');
    expect(accepts('Zoë Ångström <z@example.se>').name).toBe('Zoë Ångström');
    expect(accepts('Acme<acme@example.com>').name).toBe('Acme');
    expect(accepts('<only@example.com>')).toEqual({ ok: true, address: 'only@example.com' });
    expect(accepts('"" <only@example.com>')).toEqual({ ok: true, address: 'only@example.com' });
  });

  it('accepts a punycode TLD and the length limits exactly', () => {
    expect(accepts('a@example.xn--p1ai').address).toBe('a@example.xn--p1ai');
    const local64 = 'l'.repeat(64);
    expect(accepts(`${local64}@example.com`).address).toHaveLength(76);
    refuses(`${'l'.repeat(65)}@example.com`);
    const label = 'd'.repeat(63);
    const domain253 = `${label}.${label}.${label}.${'e'.repeat(58)}.io`;
    expect(domain253).toHaveLength(253);
    // 254 overall is the cap: a short local part with a 253-char domain exceeds it.
    expect(refuses(`ab@${domain253}`)).toMatch(/254/);
    const domain = `${label}.${label}.${label}.${'e'.repeat(56)}.io`;
    expect(accepts(`ab@${domain}`).address).toHaveLength(254);
  });

  it.each([
    ['', 'empty'],
    ['plainaddress', 'missing @'],
    ['@example.com', 'missing local part'],
    ['a@', 'missing domain'],
    ['a@localhost', 'invalid domain'],
    ['a@example.c', 'invalid domain'],
    ['a@example.123', 'invalid domain'],
    ['a@-example.com', 'invalid domain'],
    ['a@example-.com', 'invalid domain'],
    ['a@exa_mple.com', 'invalid domain'],
    ['a@example..com', 'invalid domain'],
    ['a@example.com.', 'invalid domain'],
    ['a@[127.0.0.1]', 'invalid domain'],
    ['a@bücher.de', 'invalid domain'],
    ['.a@example.com', 'invalid local part'],
    ['a.@example.com', 'invalid local part'],
    ['a..b@example.com', 'invalid local part'],
    ['a b@example.com', 'invalid local part'],
    ['"a b"@example.com', 'quoted local parts'],
    ['a@b.co,d@e.fr', 'more than one @'],
    ['a@b.co d@e.fr', 'more than one @'],
    ['a@b.co; d@e.fr', 'more than one @'],
    ['<a@evil.test> junk', 'unexpected text after ">"'],
    ['<a@evil.test>>', 'unexpected text after ">"'],
    ['Jane <a@b.co> <c@d.co>', 'unexpected text after ">"'],
    ['Jane <a@b.co', 'missing ">"'],
    ['a@b.co>', 'unexpected ">"'],
    ['Doe, John <john@example.com>', 'must be in double quotes'],
    ['John (work) <john@example.com>', 'must be in double quotes'],
    ['a@b.co (comment)', 'invalid domain'],
    ['Jane "J" <a@b.co>', 'display name contains'],
    ['"Jane <a@b.co>', 'unterminated'],
    ['"Jane" junk <a@b.co>', 'followed by <address>'],
    ['Group: a@b.co;', 'invalid local part'],
    ['Jane\r\n<a@b.co>', 'line break'],
    ['Jane\u2028<a@b.co>', 'line break'],
    ['a@b.co\u0000', 'control character'],
  ])('refuses %j', (input, reason) => {
    expect(refuses(input)).toContain(reason);
  });

  it('refuses a local part of 65 characters and an address over 998 characters of input', () => {
    expect(refuses(`${'x'.repeat(65)}@example.com`)).toMatch(/64/);
    expect(refuses(`"${'n'.repeat(1000)}" <a@b.co>`)).toBe('too long');
  });

  it('never throws on odd input', () => {
    expect(parseAddress(undefined as unknown as string)).toEqual({ ok: false, reason: 'not a string' });
  });
});
