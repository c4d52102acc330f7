import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { EmailEvent, InboundEmailRecord } from '@petrel/contracts';
import {
  hasCidReferences,
  inboundAttachmentContent,
  inlineCidImages,
  parseInboundMessage,
} from './inbound-message.js';
import { receiveInbound } from './receive-inbound.js';
import { receivedHeader } from './trace-header.js';

const raw = readFileSync(new URL('./fixtures/inbound-with-attachments.eml', import.meta.url));

describe('receiveInbound', () => {
  it('stores one record per team and publishes email.received with the reference data', async () => {
    const saved: { teamId: string; record: InboundEmailRecord; raw: Buffer; event: EmailEvent }[] = [];
    let n = 0;
    const trace = receivedHeader({
      helo: 'mail.sender.test',
      clientIp: '198.51.100.7',
      byHost: 'mx.petrel.test',
      id: 'x',
      tls: true,
      recipients: ['support@inbound.petrel.test'],
      date: new Date('2024-07-17T10:00:01Z'),
    });
    const message = Buffer.concat([Buffer.from(trace), raw]);
    const out = await receiveInbound(
      {
        raw: message,
        mailFrom: 'bounce@sender.test',
        deliveries: [
          { teamId: 't1', recipients: ['support@inbound.petrel.test'] },
          { teamId: 't2', recipients: ['hidden@other.petrel.test'] },
        ],
      },
      {
        clock: { now: () => Date.parse('2024-07-17T10:00:01Z'), monotonicMs: () => 0 },
        ids: { newId: () => `id-${++n}`, newEventId: () => `ev-${++n}` },
        inbound: {
          save: async (teamId, record, r, event) => void saved.push({ teamId, record, raw: r, event }),
        },
      },
    );
    expect(out.map((o) => o.teamId)).toEqual(['t1', 't2']);
    const first = saved[0]!;
    expect(first.record).toMatchObject({
      from: 'jane@sender.test',
      to: ['support@inbound.petrel.test'],
      cc: ['team@sender.test'],
      bcc: [],
      reply_to: ['jane.reply@sender.test'],
      received_for: ['support@inbound.petrel.test'],
      subject: 'Order #42 — photo',
      message_id: '<CAF=abc123@mail.sender.test>',
      text: expect.stringContaining('Hello, see the photo.'),
      size: message.byteLength,
    });
    expect(first.record.headers.from).toBe('"Jane Customer" <jane@sender.test>');
    expect(first.record.headers.received).toContain('by mx.petrel.test with ESMTPS');
    expect(
      first.record.attachments.map((a) => [
        a.filename,
        a.content_type,
        a.content_disposition,
        a.content_id,
        a.size,
      ]),
    ).toEqual([
      ['dot.png', 'image/png', 'inline', 'photo1@sender.test', 70],
      ['order.csv', 'text/csv', 'attachment', null, 12],
    ]);
    expect(first.event).toMatchObject({
      type: 'email.received',
      teamId: 't1',
      data: {
        email_id: first.record.id,
        from: 'jane@sender.test',
        to: ['support@inbound.petrel.test'],
        received_for: ['support@inbound.petrel.test'],
        message_id: '<CAF=abc123@mail.sender.test>',
        attachments: [
          {
            id: first.record.attachments[0]!.id,
            filename: 'dot.png',
            content_type: 'image/png',
            content_disposition: 'inline',
            content_id: 'photo1@sender.test',
          },
          expect.objectContaining({ filename: 'order.csv' }),
        ],
      },
    });
    expect(first.event.data).not.toHaveProperty('html');
    // the second team: its own id, its Bcc'd recipient in received_for
    expect(saved[1]!.record.id).not.toBe(first.record.id);
    expect(saved[1]!.record.received_for).toEqual([
      'support@inbound.petrel.test',
      'hidden@other.petrel.test',
    ]);
  });

  it('reads an attachment back from the raw message and inlines cid: images', async () => {
    const csv = await inboundAttachmentContent(raw, 1);
    expect(Buffer.from(csv!.content).toString()).toBe('id,qty\n42,1\n');
    expect(await inboundAttachmentContent(raw, 5)).toBeNull();
    const parsed = await parseInboundMessage(raw);
    expect(hasCidReferences(parsed.html)).toBe(true);
    const html = inlineCidImages(parsed.html!, parsed.attachments);
    expect(html).toContain('src="data:image/png;base64,iVBORw0KGgo');
    expect(html).not.toContain('cid:');
  });

  it('the trace field names a lone recipient only, and strips line breaks', () => {
    const h = receivedHeader({
      helo: 'evil\r\nBcc: x@y',
      clientIp: '1.2.3.4',
      byHost: 'mx',
      id: 'i',
      tls: false,
      recipients: ['a@x', 'b@x'],
      date: new Date(0),
    });
    expect(h).not.toContain('for <');
    expect(h.split('\r\n').filter((l) => /^\S/.test(l))).toEqual([
      'Received: from evil Bcc: x@y ([1.2.3.4])',
    ]);
  });
});
