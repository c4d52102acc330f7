/**
 * The `mime` port of deliver-email: packages/mailer's lean builder, with the envelope narrowed
 * to the recipients of this message (the builder puts every address of to, cc and bcc on it; a
 * per-recipient message goes to its one recipient) and the headers Petrel writes for it
 * (List-Unsubscribe…) in place of any custom header of the same name.
 */
import { formatVerp, mailboxKey, type MessageBuilder } from '@petrel/core';
import { buildMessage, MessageBuildError } from '@petrel/mailer';

export const mimeBuilder: MessageBuilder = {
  build({ emailId, content, recipients, messageIdDomain, date, extraHeaders }) {
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
        headers: extraHeaders ? withHeaders(content.headers, extraHeaders) : content.headers,
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

/** `custom` without the names `ours` sets (header names are case-insensitive), then `ours`. */
function withHeaders(
  custom: Readonly<Record<string, string>>,
  ours: Readonly<Record<string, string>>,
): Record<string, string> {
  const taken = new Set(Object.keys(ours).map((n) => n.toLowerCase()));
  const kept = Object.entries(custom).filter(([n]) => !taken.has(n.toLowerCase()));
  return { ...Object.fromEntries(kept), ...ours };
}

/**
 * The builder for a deployment with BOUNCE_DOMAIN: the envelope sender (SMTP MAIL FROM, where
 * every bounce goes, RFC 5321 section 4.5.5) is the email's VERP return path
 * `bounces+<emailId>@<bounceDomain>`, so a DSN or a feedback-loop report names its email. The
 * From header is untouched. Without a bounce domain the From address stays the envelope sender.
 */
export function mimeBuilderFor(bounceDomain: string | undefined): MessageBuilder {
  if (!bounceDomain) return mimeBuilder;
  return {
    build(input) {
      const built = mimeBuilder.build(input);
      if (!built.ok) return built;
      const from = formatVerp(input.emailId, bounceDomain);
      return { ok: true, message: { ...built.message, envelope: { ...built.message.envelope, from } } };
    },
  };
}
