import { describe, expect, it } from 'vitest';
import { decodeLogId, encodeLogId, logTagFrom } from './log-id.js';

describe('log ids', () => {
  it('encode a stream id and tag as a UUIDv7 that decodes back to them', () => {
    const tag = logTagFrom(Uint8Array.from([0xab, 0xcd, 0xef, 0x01, 0x23, 0x45]));
    expect(tag).toBe('abcdef01234');
    for (const sid of ['1764253200123-0', '1764253200123-7', '1-1073741823', '281474976710655-5']) {
      const id = encodeLogId(sid, tag);
      expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
      expect(decodeLogId(id)).toEqual({ streamId: sid, tag });
      expect(decodeLogId(id.toUpperCase())).toEqual({ streamId: sid, tag });
    }
  });

  it("carry the entry's time first, so ids sort as their entries", () => {
    const tag = '00000000000';
    const a = encodeLogId('1764253200123-0', tag);
    const b = encodeLogId('1764253200124-0', tag);
    expect(a < b).toBe(true);
    expect(parseInt(a.replace(/-/g, '').slice(0, 12), 16)).toBe(1764253200123);
  });

  it('decode nothing that is not a v7 UUID', () => {
    for (const bad of [
      '',
      'x',
      '0192f0c2-7d3e-4a1b-8c2d-3e4f5a6b7c8d',
      '0192f0c2-7d3e-7a1b-cc2d-3e4f5a6b7c8d',
    ])
      expect(decodeLogId(bad), bad).toBeNull();
  });

  it('refuse to encode what does not fit', () => {
    expect(() => encodeLogId('1-1073741824', '00000000000')).toThrow(/out of range/);
    expect(() => encodeLogId('not-an-id', '00000000000')).toThrow();
    expect(() => encodeLogId('1-0', 'xyz')).toThrow();
  });
});
