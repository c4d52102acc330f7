/**
 * The `mime` port of deliver-email: packages/mailer's lean builder, with the envelope narrowed
 * to the recipients the pipeline decided. The builder puts every address of to, cc and bcc on
 * the envelope; a recipient decided against stays in the headers but gets no RCPT TO.
 */
import { mailboxKey, type MessageBuilder } from '@petrel/core';
import { buildMessage, MessageBuildError } from '@petrel/mailer';

export const mimeBuilder: MessageBuilder = {
  build({ emailId, content, recipients, messageIdDomain, date }) {
    try {
      const built = buildMessage({
        emailId,
        messageIdDomain,
        date,
        from: content.from,
        to: content.to,
        cc: content.cc,
        bcc: content.bcc,
        reply_to: content.reply_to,
        subject: content.subject,
        ...(content.html !== undefined ? { html: content.html } : {}),
        ...(content.text !== undefined ? { text: content.text } : {}),
        headers: content.headers,
        attachments: content.attachments,
      });
      const wanted = new Set(recipients.map(mailboxKey));
      const to = built.envelope.to.filter((a) => wanted.has(mailboxKey(a)));
      return { ok: true, message: { ...built, envelope: { from: built.envelope.from, to } } };
    } catch (err) {
      if (err instanceof MessageBuildError) return { ok: false, reason: err.message };
      throw err;
    }
  },
};
