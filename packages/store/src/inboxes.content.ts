/**
 * What a thread message's record does not hold (core's `MessageContent`): its bodies and files
 * stay in the email it is — the received email (inbound: its record and raw copy) or the sent
 * one (outbound) — so a message is stored once. Shared by the API's reads, replies and forwards
 * and the worker's inbox agent.
 */
import { parseInboundMessage, type MessageContent, type MessageFile } from '@petrel/core';
import type { EmailsStore } from './emails.store.js';
import type { InboundStore } from './inbound.store.js';

export function inboxMessageContent(deps: {
  /** Received emails: an inbound message's bodies and raw copy (its files). */
  inbound: Pick<InboundStore, 'get' | 'raw'>;
  /** Sent emails: an outbound message's bodies and files. */
  emails: Pick<EmailsStore, 'get' | 'getForSend'>;
}): MessageContent {
  return {
    async bodies(teamId, m) {
      if (m.direction === 'inbound') {
        const r = await deps.inbound.get(teamId, m.id);
        return { html: r?.html ?? null, text: r?.text ?? null };
      }
      const r = await deps.emails.get(teamId, m.id);
      return { html: r?.content.html ?? null, text: r?.content.text || null };
    },
    async files(teamId, m): Promise<MessageFile[]> {
      if (m.direction === 'inbound') {
        if (m.attachments.length === 0) return [];
        const raw = await deps.inbound.raw(teamId, m.id);
        if (!raw) return [];
        return (await parseInboundMessage(raw)).attachments.map((a) => ({
          filename: a.filename,
          content_type: a.contentType,
          content: Buffer.from(a.content).toString('base64'),
        }));
      }
      const sent = await deps.emails.getForSend(teamId, m.id);
      return (sent?.attachments ?? []).map((a) => ({
        filename: a.filename ?? null,
        content_type: a.content_type ?? null,
        ...(a.content ? { content: a.content } : {}),
      }));
    },
  };
}
