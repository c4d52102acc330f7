import { describe, expect, it } from 'vitest';
import {
  SUBJECT_WINDOW_MS,
  chooseThread,
  messageIdList,
  normaliseSubject,
  ownMessageId,
  stripSubjectPrefixes,
  subjectKey,
  type ThreadLookups,
  type ThreadingInput,
} from './threading.js';

/** Lookups over a plain map of Message-ID → thread and subject key → thread. */
function lookups(
  ids: Record<string, string>,
  subjects: Record<string, { threadId: string; lastMs: number }> = {},
): ThreadLookups & { asked: string[][] } {
  const asked: string[][] = [];
  return {
    asked,
    threadsOf: (list) => {
      asked.push([...list]);
      return Promise.resolve(list.map((id) => ids[id] ?? null));
    },
    threadOfSubject: (key) => Promise.resolve(subjects[key] ?? null),
  };
}

const base: ThreadingInput = {
  messageId: 'new@client.example',
  inReplyTo: [],
  references: [],
  subject: 'Invoice 42',
  correspondent: 'Bob@Example.com',
  receivedMs: 1_000_000,
};

describe('subject normalisation', () => {
  it.each([
    ['Re: Re: Fwd: Invoice 42', 'invoice 42', true],
    ['RE: FW: invoice   42', 'invoice 42', true],
    ['AW: WG: Rechnung', 'rechnung', true],
    ['SV: VS: Faktura', 'faktura', true],
    ['Antw: Doorst: Factuur', 'factuur', true],
    ['Re[2]: Re(3): Status', 'status', true],
    ['回复：会议', '会议', true],
    ['Réf : Devis', 'devis', true],
    ['Invoice 42', 'invoice 42', false],
    ['Regarding the plan', 'regarding the plan', false],
    ['Fwd:', '', true],
  ])('%j → %j (prefixed: %s)', (subject, normalised, prefixed) => {
    expect(normaliseSubject(subject)).toBe(normalised);
    expect(stripSubjectPrefixes(subject).prefixed).toBe(prefixed);
  });

  it('keys fold the correspondent and the subject, never mixing two people', () => {
    expect(subjectKey('Re: Invoice 42', 'BOB@example.com')).toBe(subjectKey('invoice 42', 'bob@EXAMPLE.com'));
    expect(subjectKey('Re: Invoice 42', 'carol@example.com')).not.toBe(
      subjectKey('Invoice 42', 'bob@example.com'),
    );
  });
});

describe('message-id fields', () => {
  it('reads ids in order, once each, skipping what is no msg-id', () => {
    expect(messageIdList('<a@x> (comment) <b@y>\r\n\t<a@x> <nonsense> garbage')).toEqual(['a@x', 'b@y']);
    expect(messageIdList(undefined)).toEqual([]);
    expect(ownMessageId('<m1@host>')).toBe('m1@host');
    expect(ownMessageId('m1@host')).toBe('m1@host');
    expect(ownMessageId('')).toBeNull();
    expect(ownMessageId('<>')).toBeNull();
  });
});

describe('chooseThread', () => {
  it('a message with no references and no prefix starts a new thread, even with a known subject', async () => {
    const l = lookups(
      {},
      { [subjectKey('Invoice 42', 'bob@example.com')]: { threadId: 't1', lastMs: 999_000 } },
    );
    await expect(chooseThread(base, l)).resolves.toEqual({ kind: 'new' });
  });

  it('In-Reply-To wins over References, and References are read from the parent back to the root', async () => {
    const l = lookups({ 'root@x': 'tRoot', 'mid@x': 'tMid', 'parent@x': 'tParent' });
    await expect(
      chooseThread({ ...base, inReplyTo: ['parent@x'], references: ['root@x', 'mid@x'] }, l),
    ).resolves.toEqual({ kind: 'existing', threadId: 'tParent', by: 'references' });
    await expect(chooseThread({ ...base, references: ['root@x', 'mid@x'] }, l)).resolves.toMatchObject({
      threadId: 'tMid',
    });
    // one round trip per message: its own id, then the ancestors nearest first
    expect(l.asked[1]).toEqual(['new@client.example', 'mid@x', 'root@x']);
  });

  it('a message replying to two threads joins its parent’s and merges nothing', async () => {
    const l = lookups({ 'a@x': 'threadA', 'b@x': 'threadB' });
    await expect(
      chooseThread({ ...base, inReplyTo: ['b@x'], references: ['a@x', 'b@x'] }, l),
    ).resolves.toEqual({ kind: 'existing', threadId: 'threadB', by: 'references' });
  });

  it('a duplicated Message-ID joins the thread the id already names', async () => {
    const l = lookups({ 'new@client.example': 'tFirst', 'other@x': 'tOther' });
    await expect(chooseThread({ ...base, references: ['other@x'] }, l)).resolves.toEqual({
      kind: 'existing',
      threadId: 'tFirst',
      by: 'message-id',
    });
  });

  it('missing references fall back to subject + correspondent within the window', async () => {
    const key = subjectKey('Invoice 42', 'bob@example.com');
    const recent = lookups({}, { [key]: { threadId: 't1', lastMs: base.receivedMs - 1000 } });
    const reply = { ...base, messageId: null, subject: 'Re: Re: Fwd: INVOICE 42' };
    await expect(chooseThread(reply, recent)).resolves.toEqual({
      kind: 'existing',
      threadId: 't1',
      by: 'subject',
    });
    // localized prefix
    await expect(chooseThread({ ...reply, subject: 'AW: Invoice 42' }, recent)).resolves.toMatchObject({
      threadId: 't1',
    });
    // unknown references count as "is a reply" even without a prefix
    await expect(
      chooseThread({ ...base, subject: 'Invoice 42', inReplyTo: ['lost@x'] }, recent),
    ).resolves.toMatchObject({ threadId: 't1', by: 'subject' });
    // too old
    const old = lookups({}, { [key]: { threadId: 't1', lastMs: base.receivedMs - SUBJECT_WINDOW_MS - 1 } });
    await expect(chooseThread(reply, old)).resolves.toEqual({ kind: 'new' });
    // another correspondent
    await expect(chooseThread({ ...reply, correspondent: 'carol@example.com' }, recent)).resolves.toEqual({
      kind: 'new',
    });
    // outbound messages never thread by subject
    await expect(chooseThread({ ...reply, correspondent: null }, recent)).resolves.toEqual({ kind: 'new' });
  });

  it('an empty subject after the prefixes never matches by subject', async () => {
    const l = lookups(
      {},
      { [subjectKey('', 'bob@example.com')]: { threadId: 't1', lastMs: base.receivedMs } },
    );
    await expect(chooseThread({ ...base, subject: 'Re:' }, l)).resolves.toEqual({ kind: 'new' });
  });
});
