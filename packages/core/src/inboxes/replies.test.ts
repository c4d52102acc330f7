import { describe, expect, it } from 'vitest';
import { createDraftSchema } from './draft-schemas.js';
import {
  forwardSubject,
  inboxFrom,
  quotedReply,
  replyRecipients,
  replySubject,
  threadingHeaders,
} from './replies.js';
import type { InboxMessageRecord, InboxRecord } from '@petrel/contracts';

const message = (over: Partial<InboxMessageRecord> = {}): InboxMessageRecord => ({
  id: 'm1',
  thread_id: 't1',
  direction: 'inbound',
  from: 'jane@customer.test',
  to: ['support@acme.test', 'sales@acme.test'],
  cc: ['Bob <bob@customer.test>', 'SUPPORT@acme.test'],
  bcc: [],
  reply_to: [],
  subject: 'Order',
  message_id: 'c@customer.test',
  references: ['a@customer.test', 'b@customer.test'],
  attachments: [],
  read: false,
  received_at: '2025-01-02T03:04:05.000Z',
  ...over,
});

describe('reply and forward subjects', () => {
  // Re:/Fwd: once, never Re: Re:, and a name for an empty subject
  it.each([
    [replySubject, 'Order 42', 'Re: Order 42'],
    [replySubject, 'RE: Order 42', 'RE: Order 42'],
    [replySubject, 'Re[2]: Order', 'Re[2]: Order'],
    [replySubject, 'AW: Bestellung', 'Re: AW: Bestellung'],
    [replySubject, 'Fwd: Order', 'Re: Fwd: Order'],
    [replySubject, null, 'Re: (no subject)'],
    [forwardSubject, 'Invoice', 'Fwd: Invoice'],
    [forwardSubject, 'FW: Invoice', 'FW: Invoice'],
    [forwardSubject, 'Re: Invoice', 'Fwd: Re: Invoice'],
  ])('%o(%j) is %j', (subjectOf, subject, expected) => {
    expect(subjectOf(subject)).toBe(expected);
  });
});

describe('threadingHeaders (RFC 5322 section 3.6.4)', () => {
  it("In-Reply-To is the parent's id; References its chain plus its id", () => {
    expect(threadingHeaders(message())).toEqual({
      inReplyTo: 'c@customer.test',
      references: ['a@customer.test', 'b@customer.test', 'c@customer.test'],
    });
  });
  it('a parent without a Message-ID: no In-Reply-To, its references kept', () => {
    expect(threadingHeaders(message({ message_id: null }))).toEqual({
      inReplyTo: null,
      references: ['a@customer.test', 'b@customer.test'],
    });
  });
  it('a long chain keeps the root and the newest ids, 20 in all', () => {
    const refs = Array.from({ length: 30 }, (_, i) => `r${i}@x.test`);
    const out = threadingHeaders(message({ references: refs, message_id: 'last@x.test' }));
    expect(out.references).toHaveLength(20);
    expect(out.references[0]).toBe('r0@x.test');
    expect(out.references.at(-1)).toBe('last@x.test');
    expect(out.references.at(-2)).toBe('r29@x.test');
  });
});

describe('replyRecipients', () => {
  it('reply: the Reply-To, else the sender; cc only what the request adds', () => {
    expect(replyRecipients(message(), 'support@acme.test', false, [])).toEqual({
      to: ['jane@customer.test'],
      cc: [],
    });
    expect(
      replyRecipients(message({ reply_to: ['help@customer.test'] }), 'support@acme.test', false, [
        'x@y.test',
      ]),
    ).toEqual({ to: ['help@customer.test'], cc: ['x@y.test'] });
  });
  it('replyAll: the other recipients, never the inbox itself (any case), each once', () => {
    expect(
      replyRecipients(message(), 'support@acme.test', true, ['bob@customer.test', 'new@customer.test']),
    ).toEqual({
      to: ['jane@customer.test', 'sales@acme.test'],
      cc: ['Bob <bob@customer.test>', 'new@customer.test'],
    });
  });
  it('a reply to our own outbound message goes to its recipients', () => {
    const ours = message({
      direction: 'outbound',
      from: 'support@acme.test',
      to: ['jane@customer.test'],
      cc: [],
    });
    expect(replyRecipients(ours, 'support@acme.test', false, [])).toEqual({
      to: ['jane@customer.test'],
      cc: [],
    });
  });
});

describe('quotedReply and inboxFrom', () => {
  it('quotes the text with "> " and the html in a blockquote (escaped when it had text only)', () => {
    const out = quotedReply(
      { text: 'Thanks!', html: '<p>Thanks!</p>' },
      { head: message(), html: null, text: 'Line 1\n\nLine <2>' },
    );
    expect(out.text).toBe(
      'Thanks!\n\nOn Thu, 02 Jan 2025 03:04:05 GMT, jane@customer.test wrote:\n> Line 1\n>\n> Line <2>\n',
    );
    expect(out.html).toContain('<blockquote');
    expect(out.html).toContain('Line &lt;2&gt;');
  });
  it('only the parts the caller wrote', () => {
    expect(quotedReply({ text: 'x' }, { head: message(), html: '<p>a</p>', text: null })).toEqual({
      text: expect.stringContaining('> a'),
    });
  });
  it('From with from_name, quoted when RFC 5322 specials need it', () => {
    const inbox = { email_address: 'support@acme.test', from_name: 'Acme Support' } as InboxRecord;
    expect(inboxFrom(inbox)).toBe('Acme Support <support@acme.test>');
    expect(inboxFrom({ ...inbox, from_name: 'Acme, Inc.' })).toBe('"Acme, Inc." <support@acme.test>');
    expect(inboxFrom({ ...inbox, from_name: null })).toBe('support@acme.test');
  });
});

describe('createDraftSchema', () => {
  it('needs content, both or neither of thread_id and reply_to_email_id, files with a name and bytes', () => {
    const issue = (body: unknown) => createDraftSchema.safeParse(body).error?.issues[0];
    expect(issue({})).toMatchObject({ message: expect.stringMatching(/^at least one of to, cc/) });
    expect(issue({ text: 'x', thread_id: 't' })).toMatchObject({ path: ['reply_to_email_id'] });
    expect(issue({ attachments: [{ content: '', filename: 'a.txt' }] })).toMatchObject({
      path: ['attachments', 0, 'content'],
      message: 'must not be an empty file',
    });
    expect(issue({ attachments: [{ content: 'aGk=', content_type: 'text/plain' }] })).toMatchObject({
      path: ['attachments', 0, 'filename'],
    });
    expect(createDraftSchema.safeParse({ text: 'x', thread_id: 't', reply_to_email_id: 'e' }).success).toBe(
      true,
    );
  });
});
