import { describe, expect, it } from 'vitest';
import { CsvFormatError, csvRecords, type CsvItem } from './csv-records.js';

const enc = new TextEncoder();

async function all(chunks: (string | Uint8Array)[], maxRecordBytes?: number): Promise<CsvItem[]> {
  const out: CsvItem[] = [];
  const bytes = chunks.map((c) => (typeof c === 'string' ? enc.encode(c) : c));
  for await (const item of csvRecords(bytes, maxRecordBytes ? { maxRecordBytes } : {})) out.push(item);
  return out;
}

describe('csvRecords', () => {
  it('reads records across chunk boundaries, a BOM, CRLF, blank lines and quoted newlines', async () => {
    const text = '\ufeffemail,name\r\n"a@x.test","A, the first"\r\n\r\nb@x.test,"multi\nline"\nc@x.test,C';
    const bytes = enc.encode(text);
    // every split point, including inside the BOM's bytes and inside a quoted field
    for (let cut = 1; cut < bytes.length; cut += 3) {
      const items = await all([bytes.slice(0, cut), bytes.slice(cut)]);
      expect(items).toEqual([
        { record: ['email', 'name'] },
        { record: ['a@x.test', 'A, the first'] },
        { record: ['b@x.test', 'multi\nline'] },
        { record: ['c@x.test', 'C'] },
      ]);
    }
  });

  it('keeps stray quotes as text and goes on', async () => {
    const items = await all(['email,name\na@x.test,A\n"b@x.test"junk,B\nc@x.test,C\n']);
    expect(items.map((i) => ('record' in i ? i.record[0] : 'bad'))).toEqual([
      'email',
      'a@x.test',
      '"b@x.test"junk',
      'c@x.test',
    ]);
  });

  it('a quote never closed, or a record over the size limit, is a CsvFormatError after the good records', async () => {
    const seen: CsvItem[] = [];
    const run = async (chunks: string[], max?: number) => {
      seen.length = 0;
      for await (const item of csvRecords(
        chunks.map((c) => enc.encode(c)),
        max ? { maxRecordBytes: max } : {},
      ))
        seen.push(item);
    };
    await expect(run(['email\na@x.test\n"b@x.test\nc@x.test\n'])).rejects.toBeInstanceOf(CsvFormatError);
    expect(seen).toEqual([{ record: ['email'] }, { record: ['a@x.test'] }]);
    await expect(run(['email\na@x.test\n' + 'z'.repeat(500) + '\nc@x.test\n'], 100)).rejects.toThrow(
      /Max Record Size/,
    );
    expect(seen).toEqual([{ record: ['email'] }, { record: ['a@x.test'] }]);
  });

  it('passes an error of the source on', async () => {
    async function* broken(): AsyncIterable<Uint8Array> {
      yield enc.encode('email\na@x.test\n');
      throw new Error('redis went away');
    }
    const out: CsvItem[] = [];
    await expect(
      (async () => {
        for await (const item of csvRecords(broken())) out.push(item);
      })(),
    ).rejects.toThrow('redis went away');
  });

  it('stops reading the source when the consumer stops', async () => {
    let pulled = 0;
    async function* endless(): AsyncIterable<Uint8Array> {
      yield enc.encode('email\n');
      for (;;) {
        pulled++;
        yield enc.encode('a@x.test\n'.repeat(10_000));
      }
    }
    let n = 0;
    for await (const _ of csvRecords(endless())) if (++n > 5) break;
    const after = pulled;
    await new Promise((r) => setImmediate(r));
    expect(pulled).toBe(after);
    expect(after).toBeLessThan(10);
  });
});
