/**
 * The `Received` trace field the inbound server puts at the top of every message it accepts
 * (RFC 5321 section 4.4: a server that accepts a message for delivery must add one). The `for`
 * clause names the recipient only when the transaction had one, as section 7.2 advises for
 * privacy; with one it is the message's `received_for`.
 * `with ESMTPS` marks a TLS session (RFC 3848).
 */
export interface TraceInfo {
  /** The client's EHLO/HELO name. */
  helo: string;
  clientIp: string;
  /** The host name this server answers as. */
  byHost: string;
  /** The transaction's id (the first received email's id). */
  id: string;
  tls: boolean;
  recipients: readonly string[];
  date: Date;
}

/** Strips what may not appear in a header line (CR, LF, control characters). */
const clean = (s: string): string => s.replace(/[\x00-\x1f\x7f]+/g, ' ').trim();

/** The whole field, `Received: …` with its CRLF. */
export function receivedHeader(t: TraceInfo): string {
  const forClause = t.recipients.length === 1 ? `\r\n\tfor <${clean(t.recipients[0]!)}>` : '';
  return (
    `Received: from ${clean(t.helo) || 'unknown'} ([${clean(t.clientIp)}])\r\n` +
    `\tby ${clean(t.byHost)} with ${t.tls ? 'ESMTPS' : 'ESMTP'} id ${clean(t.id)}${forClause};\r\n` +
    `\t${t.date.toUTCString().replace('GMT', '+0000')}\r\n`
  );
}
