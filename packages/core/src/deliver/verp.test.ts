import { describe, expect, it } from 'vitest';
import { emailIdOfMessageId, formatVerp, isBounceDomainAddress, parseVerp } from './verp.js';

const ID = '0190b7c2-5a3e-7d41-9f2a-1c2d3e4f5a6b';

describe('VERP return path', () => {
  it('formats bounces+<emailId>@<domain> within the 64-octet local part', () => {
    const a = formatVerp(ID, 'Bounce.Petrel.TEST');
    expect(a).toBe(`bounces+${ID}@bounce.petrel.test`);
    expect(a.split('@')[0]!.length).toBeLessThanOrEqual(64);
  });

  it('parses what it formats, in any case and with angle brackets', () => {
    expect(parseVerp(formatVerp(ID, 'b.test'), 'b.test')).toBe(ID);
    expect(parseVerp(`<BOUNCES+${ID.toUpperCase()}@B.TEST>`, 'b.test')).toBe(ID);
    expect(parseVerp(` bounces+${ID}@b.test `)).toBe(ID);
  });

  it('refuses other domains, other local parts and ids that are no UUID', () => {
    expect(parseVerp(`bounces+${ID}@other.test`, 'b.test')).toBeNull();
    expect(parseVerp(`returns+${ID}@b.test`, 'b.test')).toBeNull();
    expect(parseVerp('bounces+not-an-id@b.test', 'b.test')).toBeNull();
    expect(parseVerp('bounces@b.test', 'b.test')).toBeNull();
    expect(parseVerp('no-at-sign', 'b.test')).toBeNull();
  });

  it('tells addresses at the bounce domain apart', () => {
    expect(isBounceDomainAddress('fbl@B.test', 'b.test')).toBe(true);
    expect(isBounceDomainAddress('fbl@a.b.test', 'b.test')).toBe(false);
  });

  it('reads the email id of a Message-ID Petrel wrote, and nothing else', () => {
    expect(emailIdOfMessageId(`<${ID}@acme.test>`)).toBe(ID);
    expect(emailIdOfMessageId(`${ID}@acme.test`)).toBe(ID);
    expect(emailIdOfMessageId('<CAF=abc123@mail.sender.test>')).toBeNull();
    expect(emailIdOfMessageId('8787KJKJ3K4J3K4J3K4J3.mail@example.net')).toBeNull();
  });
});
