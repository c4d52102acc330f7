/**
 * Which permanent failures say the ADDRESS is bad (so the team's suppression list takes it, origin
 * `bounce`) rather than this one message (too big, content refused, a policy block). Judged on the
 * enhanced status code when there is one (RFC 3463: X.1.x are addressing failures; 5.2.1 a
 * disabled mailbox; 5.4.4 a domain that cannot be routed to), else on the basic code (RFC 5321
 * section 4.2.3: 550 mailbox unavailable, 551 user not local, 553 mailbox name not allowed).
 */
const SUPPRESSING_BASIC = new Set([550, 551, 553]);

export function bounceSuppresses(code: number | undefined, enhancedCode: string | undefined): boolean {
  if (code !== undefined && (code < 500 || code > 599)) return false;
  if (enhancedCode) {
    const [klass, subject, detail] = enhancedCode.split('.');
    if (klass !== '5') return false;
    return subject === '1' || enhancedCode === '5.2.1' || (subject === '4' && detail === '4');
  }
  return code !== undefined && SUPPRESSING_BASIC.has(code);
}
