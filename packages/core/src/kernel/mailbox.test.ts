import { describe, expect, it } from 'vitest';
import { parseAddress } from './mailbox.js';

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
    expect(accepts('  Acme   <acme@example.com>  ')).toEqual({
      ok: true,
      name: 'Acme',
      address: 'acme@example.com',
    });
  });

  describe('angle brackets need a display name (spec: bare or `Display Name <address>`)', () => {
    const MISSING = 'angle brackets without a display name';
    it.each([
      ['<only@example.com>'],
      ['  <only@example.com>\t'],
      ['<a@evil.test>'],
      ['"" <a@evil.test>'],
      ['""<a@evil.test>'],
      ['" " <a@evil.test>'],
      ['"\t" <a@evil.test>'],
      ['\u00a0<a@evil.test>'], // NBSP: the mailer's String#trim would make it no name at all
      ['\u3000 <a@evil.test>'],
      ['\u200b<a@evil.test>'], // zero-width space
      ['\ufeff<a@evil.test>'], // BOM
      ['"\u200e" <a@evil.test>'], // left-to-right mark, quoted
    ])('refuses %j', (input) => {
      expect(refuses(input)).toContain(MISSING);
    });

    it('says what to send instead', () => {
      expect(refuses('<a@evil.test>')).toBe(
        'angle brackets without a display name: send the bare address or Display Name <address>',
      );
    });

    it('reports a broken address before the missing name', () => {
      expect(refuses('<a@evil.test> junk')).toContain('unexpected text after ">"');
      expect(refuses('<nope>')).toContain('missing @');
    });
  });

  describe('the address is always the one between the only "<" and the final ">"', () => {
    // Each accepted shape has exactly one `<addr-spec>` outside quotes, so no reader of the
    // string (the mailer takes the text between the last `<` and a final `>`) can find another.
    it.each([
      ['"a@good.test" <b@evil.test>', 'a@good.test', 'b@evil.test'],
      ['"Say <x@good.test>" <b@evil.test>', 'Say <x@good.test>', 'b@evil.test'],
      ['"<x@good.test>" <b@evil.test>', '<x@good.test>', 'b@evil.test'],
      ['"a\\\\" <b@evil.test>', 'a\\', 'b@evil.test'],
      ['"a\\"b" <b@evil.test>', 'a"b', 'b@evil.test'],
      ['"x \\"<y@good.test>\\"" <b@evil.test>', 'x "<y@good.test>"', 'b@evil.test'],
      ['Good Name <b@evil.test>', 'Good Name', 'b@evil.test'],
      ['Good.Name <b@evil.test>', 'Good.Name', 'b@evil.test'],
    ])('accepts %j as %j <%s>', (input, name, address) => {
      expect(accepts(input)).toEqual({ ok: true, name, address });
    });

    it.each([
      // more than one `<` or `>`, nested or repeated brackets
      ['<<a@evil.test>>', 'unexpected text after ">"'],
      ['Name <<a@evil.test>>', 'unexpected text after ">"'],
      ['Name <a@good.test<b@evil.test>', 'more than one "<"'],
      ['Name <a@good.test> <b@evil.test>', 'unexpected text after ">"'],
      ['Name <a@good.test>, <b@evil.test>', 'unexpected text after ">"'],
      ['Name <a@good.test>b@evil.test', 'unexpected text after ">"'],
      ['Name < a@evil.test >', 'invalid local part'],
      ['Name <>', 'empty address'],
      ['a@good.test <b@evil.test>', 'must be in double quotes'],
      ['a@good.test<b@evil.test>', 'must be in double quotes'],
      ['Name <@relay.test:a@evil.test>', 'more than one @'],
      ['Name <"a"@evil.test>', 'quoted local parts'],
      ['Name <a@[192.0.2.1]>', 'invalid domain'],
      ['=?utf-8?q?a@good.test?= <b@evil.test>', 'must be in double quotes'],
      // quoted display names and nested quotes
      ['"a@good.test" b@evil.test', 'followed by <address>'],
      ['"a@good.test"b@evil.test', 'followed by <address>'],
      ['"a" "b" <c@evil.test>', 'followed by <address>'],
      ['"a"b"c" <x@evil.test>', 'followed by <address>'],
      ['"a\\\\"b" <x@evil.test>', 'followed by <address>'],
      ['"a <b@evil.test>', 'unterminated'],
      ['"a"@good.test <b@evil.test>', 'quoted local parts'],
      ['Name "a" <b@evil.test>', 'display name contains'],
      // comments
      ['a@good.test (b@evil.test)', 'more than one @'],
      ['(comment) a@good.test', 'invalid local part'],
      ['a(comment)@good.test', 'invalid local part'],
      ['a@good.test(comment)', 'invalid domain'],
      ['Name (b@evil.test) <a@good.test>', 'must be in double quotes'],
      ['<a@good.test> (comment)', 'unexpected text after ">"'],
      // group syntax and address lists
      ['g: a@evil.test;', 'invalid local part'],
      ['g:a@evil.test;', 'invalid local part'],
      ['g: <a@evil.test>;', 'must be in double quotes'],
      ['"g": a@evil.test;', 'followed by <address>'],
      ['undisclosed-recipients:;', 'missing @'],
      ['a@good.test, b@evil.test', 'more than one @'],
    ])('refuses %j', (input, reason) => {
      expect(refuses(input)).toContain(reason);
    });
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

  describe('internationalised addresses (RFC 5890/5891 IDNA, RFC 6531 SMTPUTF8)', () => {
    it.each([
      'user@bücher.example',
      'user@BÜCHER.example',
      'user@example.рф',
      'user@faß.de',
      'josé@example.com',
      'josé@bücher.example',
      '用户@例子.广告',
      'Ünïcode Näme <josé@bücher.example>',
      '"Doe, José" <josé@xn--bcher-kva.example>',
    ])('accepts %j as written', (input) => {
      const r = accepts(input);
      expect(input).toContain(r.address);
      expect(r.address).toBe(/<([^>]+)>$/.exec(input)?.[1] ?? input);
    });

    it.each([
      ['user@bü-.example', 'invalid domain'], // hyphen at a label's end (RFC 5891 4.2.3.1)
      ['user@-bü.example', 'invalid domain'],
      ['user@bü_cher.example', 'invalid domain'],
      ['user@😀.example', 'invalid domain'], // symbols are not PVALID (RFC 5892)
      ['user@ｅxample.com', 'invalid domain'], // full-width: delivered to another name than recorded
      ['user@münchen。de', 'invalid domain'], // ideographic full stop
      ['user@á.example', 'invalid domain'], // decomposed: not the form IDNA delivers to
      ['user@ex‍ample.com', 'invalid domain'], // zero-width joiner
      ['user@ex‮ample.com', 'invalid domain'], // bidi override
      ['user@bücher', 'invalid domain'], // one label
      ['user@bücher..example', 'invalid domain'],
      ['jo sé@example.com', 'invalid local part'], // no-break space
      ['jo​sé@example.com', 'invalid local part'], // zero-width space
      ['josé😀@example.com', 'invalid local part'],
      ['.josé@example.com', 'invalid local part'],
      [`${'é'.repeat(33)}@example.com`, 'local part longer than 64 octets'],
      [`a@${'ü'.repeat(60)}.example`, 'invalid domain'], // an A-label of over 63 characters
    ])('refuses %j', (input, reason) => {
      expect(refuses(input)).toContain(reason);
    });

    it('measures a UTF-8 local part in octets: 32 two-byte characters fit, 33 do not', () => {
      expect(accepts(`${'é'.repeat(32)}@example.com`).address).toHaveLength(44);
    });
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
