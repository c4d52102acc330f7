/**
 * The SMTP envelope's recipients (RFC 5321 RCPT TO) of an email: every address of to, cc and bcc,
 * bare, each once. Bcc is on the envelope only; the headers list to and cc as written.
 */
import { domainToASCII } from 'node:url';
import type { EmailContent } from '@petrel/contracts';

/**
 * The bare address of a validated `addr` or `Name <addr>`: what is between the last `<` and a
 * final `>` (the mailer's reading too, so both agree on every accepted input).
 */
export function bareAddress(input: string): string {
  const s = input.trim();
  if (!s.endsWith('>')) return s;
  const lt = s.lastIndexOf('<');
  return lt === -1 ? s : s.slice(lt + 1, -1).trim();
}

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

const NON_ASCII = /[^\x00-\x7f]/;

/**
 * One mailbox however it is spelled, for matching an address as the email holds it with the same
 * address as it went on the wire: case folded, an internationalised domain as A-labels (RFC 5890),
 * so `ada@Bücher.example` and `ada@xn--bcher-kva.example` are one mailbox.
 */
export function mailboxKey(address: string): string {
  const at = address.lastIndexOf('@');
  const domain = address.slice(at + 1);
  if (at < 0 || !NON_ASCII.test(domain)) return address.toLowerCase();
  return `${address.slice(0, at)}@${domainToASCII(domain) || domain}`.toLowerCase();
}
