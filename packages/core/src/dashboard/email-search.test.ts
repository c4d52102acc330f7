import { describe, expect, it } from 'vitest';
import { emailSearchQueryTerms, emailSearchTerms, subjectWords } from './email-search.js';

describe('subjectWords', () => {
  it.each([
    ['Your March invoice', ['your', 'march', 'invoice']],
    ['Re: RE: invoice #42 — invoice!', ['re', 'invoice', '42']],
    ['a b c', []],
    ['Ｆｕｌｌ width', ['full', 'width']],
    ['Ärger über Bücher', ['ärger', 'über', 'bücher']],
    ['', []],
    ['x'.repeat(50), ['x'.repeat(40)]],
    // characters outside the BMP are two UTF-16 units each: counted as one character
    ['𠀀 𠀀𠀁 a𠀀', ['𠀀𠀁', 'a𠀀']],
    ['𠀀'.repeat(30), ['𠀀'.repeat(30)]],
    ['𠀀'.repeat(50), ['𠀀'.repeat(40)]],
    [Array.from({ length: 20 }, (_, i) => `w${i}`).join(' '), Array.from({ length: 8 }, (_, i) => `w${i}`)],
  ])('%j', (subject, words) => {
    expect(subjectWords(subject)).toEqual(words);
  });
});

describe('emailSearchTerms', () => {
  it('indexes every recipient as its mailbox, each tag by name and name=value, and the subject words', () => {
    expect(
      emailSearchTerms({
        to: ['Ada <Ada@Bücher.example>', 'bob@example.com'],
        cc: ['BOB@example.com'],
        bcc: ['carol@example.com'],
        tags: [{ name: 'category', value: 'welcome' }],
        subject: 'Hello hello',
      }),
    ).toEqual([
      'to:ada@xn--bcher-kva.example',
      'to:bob@example.com',
      'to:carol@example.com',
      'tag:category',
      'tag:category=welcome',
      'subject:hello',
    ]);
  });
});

describe('emailSearchQueryTerms', () => {
  it.each([
    [{}, []],
    [{ to: 'Ada@Bücher.example' }, ['to:ada@xn--bcher-kva.example']],
    [{ to: 'Ada <ada@example.com>' }, ['to:ada@example.com']],
    [{ status: 'delivered' }, ['status:delivered']],
    [{ tag: 'category' }, ['tag:category']],
    [{ tag: 'category=welcome' }, ['tag:category=welcome']],
    [{ subject: 'March Invoice' }, ['subject:march', 'subject:invoice']],
    [
      { to: 'a@b.c', status: 'sent', tag: 't', subject: 'hi' },
      ['to:a@b.c', 'status:sent', 'tag:t', 'subject:hi'],
    ],
  ])('%j', (q, terms) => {
    expect(emailSearchQueryTerms(q)).toEqual(terms);
  });

  it.each([
    [{ to: 'not-an-address' }, /^to: /],
    [{ to: '' }, /^to: /],
    [{ status: 'lost' }, /^status: must be one of scheduled, queued/],
    [{ tag: 'a=b=c' }, /^tag: /],
    [{ tag: 'sp ace' }, /^tag: /],
    [{ tag: '=v' }, /^tag: /],
    [{ subject: '!' }, /^subject: /],
  ])('refuses %j', (q, message) => {
    expect(() => emailSearchQueryTerms(q)).toThrow(message);
  });
});
