/**
 * The return path of every email Petrel sends when BOUNCE_DOMAIN is configured: a VERP address
 * (Variable Envelope Return Path, D. J. Bernstein, 1997) naming the email,
 * `bounces+<emailId>@<BOUNCE_DOMAIN>`. It is the SMTP `MAIL FROM` (RFC 5321 section 4.1.1.2),
 * where every delivery status notification goes (RFC 3464 section 2; RFC 5321 section 4.5.5),
 * and the address feedback loops report to: a bounce or a complaint arriving there names the
 * email it is about without any lookup of the returned text.
 *
 * The local part is `bounces+` and a UUID: 44 characters, within the 64 of RFC 5321 section
 * 4.5.3.1.1, ASCII only, so it survives any hop. Matching is case-insensitive (some MTAs fold
 * the case of the whole address).
 */
import { idKey, UUID_RE } from '../kernel/ids.js';

/** The local part before the `+` of every return path. */
export const BOUNCE_LOCAL_PART = 'bounces';

/** `bounces+<emailId>@<bounceDomain>`. */
export function formatVerp(emailId: string, bounceDomain: string): string {
  return `${BOUNCE_LOCAL_PART}+${idKey(emailId)}@${bounceDomain.toLowerCase()}`;
}

/**
 * The email id of a return path, or null when `address` is not one: another local part, another
 * domain (when `bounceDomain` is given), or no UUID after the `+`. Angle brackets are allowed.
 * `bounceDomain` may also be a test of the domain: a team's sending domain sends with
 * `bounces+<emailId>@<return-path subdomain>` (`send.example.com`), one such domain per
 * sending domain.
 */
export function parseVerp(
  address: string,
  bounceDomain?: string | ((domain: string) => boolean),
): string | null {
  const bare = address.trim().replace(/^<|>$/g, '');
  const at = bare.lastIndexOf('@');
  if (at < 0) return null;
  const local = bare.slice(0, at).toLowerCase();
  const domain = bare.slice(at + 1).toLowerCase();
  if (
    typeof bounceDomain === 'function'
      ? !bounceDomain(domain)
      : bounceDomain !== undefined && domain !== bounceDomain.toLowerCase()
  )
    return null;
  const prefix = `${BOUNCE_LOCAL_PART}+`;
  if (!local.startsWith(prefix)) return null;
  const id = local.slice(prefix.length);
  return UUID_RE.test(id) ? id : null;
}

/** Whether `address` is at the bounce domain (any local part): mail for the bounce processor. */
export function isBounceDomainAddress(address: string, bounceDomain: string): boolean {
  const at = address.lastIndexOf('@');
  return at >= 0 && address.slice(at + 1).toLowerCase() === bounceDomain.toLowerCase();
}

/**
 * The email id in a Message-ID Petrel wrote, `<emailId@domain>` (accepted-emails.ts), or null
 * for any other shape. The caller still checks that such an email exists.
 */
export function emailIdOfMessageId(messageId: string): string | null {
  const m = /^\s*<?([^@<>\s]+)@[^<>\s]+>?\s*$/.exec(messageId);
  return m && UUID_RE.test(m[1]!) ? m[1]!.toLowerCase() : null;
}
