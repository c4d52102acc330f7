/**
 * SMTP smuggling defence for submitted message data. RFC 5321 section 2.3.8 allows CR and LF in
 * the data only together, as the CRLF line ending, and section 4.1.1.4 forbids a server to take
 * anything but <CRLF>.<CRLF> as the end of the data ("<LF>.<LF>" in particular MUST NOT end it).
 * The SMTP server already ends the data only at <CRLF>.<CRLF>, but a message holding a bare CR or
 * LF is exactly what a smuggling attempt looks like (`<LF>.<CR><LF>`, `<CR>.<CR>`, `<LF>.<LF>`):
 * another server on the path may read such a sequence as the end and the bytes after it as a
 * second message. Petrel rebuilds the message it sends, but refusing these messages outright
 * (as Postfix's smtpd_forbid_bare_newline does) keeps any such sequence out of every record and
 * log, and a conforming client never sends one.
 */

/** Finds bare CR / bare LF across the chunks of the data, in constant memory. */
export class BareLineEndingScanner {
  private previous = -1;
  private found: 'CR' | 'LF' | undefined;

  /** Feeds the next chunk of the (dot-unstuffed) data. */
  push(chunk: Uint8Array): void {
    if (this.found) return;
    for (let i = 0; i < chunk.length; i++) {
      const c = chunk[i]!;
      if (this.previous === 0x0d && c !== 0x0a) {
        this.found = 'CR';
        return;
      }
      if (c === 0x0a && this.previous !== 0x0d) {
        this.found = 'LF';
        return;
      }
      this.previous = c;
    }
  }

  /** After the last chunk: the first bare line ending found, if any (a trailing CR is bare). */
  result(): 'CR' | 'LF' | undefined {
    if (!this.found && this.previous === 0x0d) this.found = 'CR';
    return this.found;
  }
}

export const BARE_LINE_ENDING_MESSAGE =
  'Message contains a bare CR or LF: lines must end with CRLF (RFC 5321 sections 2.3.8 and 4.1.1.4)';
