/**
 * What both SMTP servers (submission and inbound) do with a DATA stream and a refusal: read the
 * message whole unless it passes the size limit (the stream is read to its end either way, so
 * the client gets its 552 after the final dot), noting any bare CR or LF (RFC 5321 sections
 * 2.3.8 and 4.1.1.4: the smuggling vector both servers refuse); and an error carrying the reply
 * code smtp-server answers with.
 */
import type { SMTPServerDataStream } from 'smtp-server';
import { BareLineEndingScanner } from '@petrel/core';

/** The whole message, unless it passes `maxBytes`; and whether it holds a bare CR or LF. */
export async function readData(
  stream: SMTPServerDataStream,
  maxBytes: number,
): Promise<'too_large' | { raw: Buffer; bare: 'CR' | 'LF' | undefined }> {
  const chunks: Buffer[] = [];
  let bytes = 0;
  const scanner = new BareLineEndingScanner();
  for await (const chunk of stream as AsyncIterable<Buffer>) {
    bytes += chunk.length;
    if (bytes > maxBytes) continue; // read to the end, keep nothing more: the answer is 552
    scanner.push(chunk);
    chunks.push(chunk);
  }
  if (bytes > maxBytes || stream.sizeExceeded) return 'too_large';
  return { raw: Buffer.concat(chunks, bytes), bare: scanner.result() };
}

/** An error smtp-server answers with `code` and `message`. */
export function smtpError(code: number, message: string): Error & { responseCode: number } {
  return Object.assign(new Error(message), { responseCode: code });
}
