/**
 * receiveInbound: a message the inbound server accepted for receiving addresses becomes a
 * received email of each team it was addressed to — its parsed fields, headers and attachment
 * metadata, the raw message (the store keeps it compressed) — and an `email.received` event
 * with Resend's data for it (reference: bare `from`, to, cc, bcc, received_for, message_id,
 * subject, attachment metadata; no bodies, no content), written in one step per team.
 *
 * The message is parsed once for every team. Each team gets its own id, and `received_for`
 * lists what the Received `for` clauses name plus that team's envelope recipients.
 */
import type {
  EmailEvent,
  InboundAttachment,
  InboundAuthentication,
  InboundEmailRecord,
} from '@petrel/contracts';
import { mailboxKey } from '../kernel/mailbox.js';
import { parseInboundMessage } from './inbound-message.js';
import { fileReceivedEmail } from '../inboxes/use-cases.js';
import { queueAgentRuns } from '../inboxes/agent-run.js';
import type { ReceivePorts } from './ports.js';

/** The envelope recipients of one team in a transaction. */
export interface InboundDelivery {
  teamId: string;
  recipients: readonly string[];
}

export interface ReceiveInput {
  /** The whole message as accepted, the server's Received field at its top. */
  raw: Buffer;
  /** The envelope sender (MAIL FROM); null for the null reverse-path `<>`. */
  mailFrom: string | null;
  deliveries: readonly InboundDelivery[];
  /** The inbound server's checks of the message (authentication.ts); absent when it made none. */
  authentication?: InboundAuthentication;
}

/** The `data` of `email.received` (reference C.10). */
export function receivedEventData(r: InboundEmailRecord): Record<string, unknown> {
  return {
    email_id: r.id,
    created_at: r.created_at,
    from: r.from,
    to: r.to,
    cc: r.cc,
    bcc: r.bcc,
    received_for: r.received_for,
    message_id: r.message_id,
    subject: r.subject,
    attachments: r.attachments.map((a) => ({
      id: a.id,
      filename: a.filename,
      content_type: a.content_type,
      content_disposition: a.content_disposition,
      content_id: a.content_id,
    })),
  };
}

function union(first: readonly string[], more: readonly string[]): string[] {
  const seen = new Set(first.map(mailboxKey));
  const out = [...first];
  for (const a of more) {
    if (!seen.has(mailboxKey(a))) {
      seen.add(mailboxKey(a));
      out.push(a);
    }
  }
  return out;
}

/** Stores the message for every delivery; returns the received email id of each, in order. */
export async function receiveInbound(
  input: ReceiveInput,
  ports: ReceivePorts,
): Promise<{ teamId: string; emailId: string }[]> {
  const parsed = await parseInboundMessage(input.raw);
  const out: { teamId: string; emailId: string }[] = [];
  for (const d of input.deliveries) {
    const nowMs = ports.clock.now();
    const createdAt = new Date(nowMs).toISOString();
    const id = ports.ids.newId();
    const attachments = parsed.attachments.map((a): InboundAttachment => ({
      id: ports.ids.newId(),
      filename: a.filename,
      size: a.size,
      content_type: a.contentType,
      content_id: a.contentId,
      content_disposition: a.disposition,
    }));
    const record: InboundEmailRecord = {
      id,
      created_at: createdAt,
      from: parsed.from ?? input.mailFrom ?? '',
      to: parsed.to.length > 0 ? parsed.to : [...d.recipients],
      cc: parsed.cc,
      bcc: parsed.bcc,
      reply_to: parsed.replyTo,
      received_for: union(parsed.receivedFor, d.recipients),
      subject: parsed.subject,
      message_id: parsed.messageId,
      html: parsed.html,
      text: parsed.text,
      headers: parsed.headers,
      attachments,
      size: input.raw.byteLength,
      ...(input.authentication && { authentication: input.authentication }),
    };
    const event: EmailEvent = {
      id: ports.ids.newEventId(),
      type: 'email.received',
      created_at: createdAt,
      teamId: d.teamId,
      data: receivedEventData(record),
    };
    await ports.inbound.save(d.teamId, record, input.raw, event);
    // the same message in the team's inboxes at its addresses (threaded; the record above holds
    // its bodies and raw copy). A failure here answers 451 and the sender retries the whole
    // message: at least once, like every other step of reception.
    if (ports.inboxes) {
      const filed = await fileReceivedEmail(
        { teamId: d.teamId, email: record },
        { inboxes: ports.inboxes, ids: ports.ids },
      );
      if (ports.agentRuns && filed.length > 0)
        await queueAgentRuns(
          { teamId: d.teamId, emailId: id, filed },
          { inboxes: ports.inboxes, queue: ports.agentRuns },
        );
    }
    out.push({ teamId: d.teamId, emailId: id });
  }
  return out;
}
