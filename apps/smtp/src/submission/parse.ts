/** MIME parsing of a submitted message (postal-mime) into the send request it stands for. */
import PostalMime from 'postal-mime';
import { submissionRequest, type SubmissionRequest } from '@petrel/core';

/**
 * The line break that ends a text part belongs to the boundary after it (RFC 2046 section
 * 5.1.1) or to the end of the data: it is not the client's content, but postal-mime keeps it.
 */
const withoutFinalBreak = (s: string | undefined): string | undefined => s?.replace(/\r?\n$/, '');

export async function parseSubmission(raw: Buffer, rcptTo: string[]): Promise<SubmissionRequest> {
  const email = await PostalMime.parse(raw, { attachmentEncoding: 'base64' });
  return submissionRequest(
    {
      ...email,
      html: withoutFinalBreak(email.html),
      text: withoutFinalBreak(email.text),
      attachments: email.attachments.map((a) => ({
        ...a,
        content:
          typeof a.content === 'string'
            ? a.content
            : Buffer.from(a.content as ArrayBuffer).toString('base64'),
      })),
    },
    { rcptTo },
  );
}
