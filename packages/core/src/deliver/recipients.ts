/**
 * The SMTP envelope's recipients (RFC 5321 RCPT TO) of an email: every address of to, cc and bcc,
 * bare, each once. Bcc is on the envelope only; the headers list to and cc as written.
 */
import type { EmailContent } from '@petrel/contracts';
import { bareAddress } from '../kernel/mailbox.js';

/**
 * to + cc + bcc as bare addresses, in that order, without repeats. Addresses are compared
 * case-insensitively: the local part is case-sensitive in theory (RFC 5321 section 2.4) but
 * no receiving system treats it so, and sending twice to one mailbox is the worse mistake.
 */
export function envelopeRecipients(content: Pick<EmailContent, 'to' | 'cc' | 'bcc'>): string[] {
  const seen = new Set<string>();
  const out: string[] = [];
  for (const list of [content.to, content.cc, content.bcc]) {
    for (const entry of list) {
      const address = bareAddress(entry);
      const key = address.toLowerCase();
      if (seen.has(key)) continue;
      seen.add(key);
      out.push(address);
    }
  }
  return out;
}
