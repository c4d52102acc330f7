import { describe, expect, it } from 'vitest';
import { LIMITS, type AttachmentInput } from '@petrel/contracts';
import { emailContent, MemoryAttachmentFetcher } from '@petrel/testing';
import { ATTACHMENT_FETCH_TIMEOUT_MS, fetchAttachments } from './fetch-attachments.js';
import type { StageContext } from './stage.js';

const single: StageContext = { teamId: 'team', index: 0, batch: false };
const b64 = (s: string) => Buffer.from(s).toString('base64');

const email = (attachments: AttachmentInput[]) => emailContent({ attachments });

describe('fetchAttachments', () => {
  it('leaves an email without path attachments untouched and fetches nothing', async () => {
    const fetcher = new MemoryAttachmentFetcher();
    const e = email([{ content: b64('hi') }]);
    expect(await fetchAttachments(fetcher)(e, single)).toEqual({ email: e });
    expect(fetcher.calls).toEqual([]);
  });

  it('replaces each path by base64 content; names given by the client win over the server', async () => {
    const fetcher = new MemoryAttachmentFetcher()
      .serve('https://files.test/a.pdf', 'PDF', { contentType: 'application/pdf', filename: 'a.pdf' })
      .serve('https://files.test/b', 'B', { contentType: 'text/plain', filename: 'b' });
    const r = await fetchAttachments(fetcher)(
      email([
        { content: b64('inline'), filename: 'i.txt' },
        { content: '', path: 'https://files.test/a.pdf' },
        { content: '', path: 'https://files.test/b', filename: 'given.txt', content_id: 'logo' },
      ]),
      single,
    );
    expect(r).toEqual({
      email: expect.objectContaining({
        attachments: [
          { content: b64('inline'), filename: 'i.txt' },
          { content: b64('PDF'), filename: 'a.pdf', content_type: 'application/pdf' },
          { content: b64('B'), filename: 'given.txt', content_type: 'text/plain', content_id: 'logo' },
        ],
      }),
    });
  });

  it('gives each fetch what the inline attachments and earlier fetches left, and one deadline', async () => {
    const fetcher = new MemoryAttachmentFetcher()
      .serve('https://f.test/1', '12345')
      .serve('https://f.test/2', 'x');
    await fetchAttachments(fetcher, { clock: { now: () => 0 } })(
      email([
        { content: b64('abc') },
        { content: '', path: 'https://f.test/1' },
        { content: '', path: 'https://f.test/2' },
      ]),
      single,
    );
    expect(fetcher.calls.map((c) => c.limits)).toEqual([
      {
        maxBytes: LIMITS.attachmentsTotalBytes - 3,
        timeoutMs: ATTACHMENT_FETCH_TIMEOUT_MS,
        field: 'attachments[1].path',
      },
      {
        maxBytes: LIMITS.attachmentsTotalBytes - 8,
        timeoutMs: ATTACHMENT_FETCH_TIMEOUT_MS,
        field: 'attachments[2].path',
      },
    ]);
  });

  it("refuses with the fetcher's invalid_attachment, naming the email in a batch", async () => {
    const fetcher = new MemoryAttachmentFetcher().refuse('http://10.0.0.1/x', 'is a private address');
    const r = await fetchAttachments(fetcher)(email([{ content: '', path: 'http://10.0.0.1/x' }]), {
      ...single,
      index: 4,
      batch: true,
    });
    expect(r).toEqual({
      refused: { name: 'invalid_attachment', message: 'emails[4].attachments[0].path: is a private address' },
    });
  });

  it('refuses the attachments left when the deadline has passed, without fetching them', async () => {
    let now = 0;
    const fetcher = new MemoryAttachmentFetcher().serve('https://f.test/slow', 'x');
    const slow = {
      fetch: async (url: string, limits: Parameters<MemoryAttachmentFetcher['fetch']>[1]) => {
        now += 1_000;
        return fetcher.fetch(url, limits);
      },
    };
    const r = await fetchAttachments(slow, { timeoutMs: 1_000, clock: { now: () => now } })(
      email([
        { content: '', path: 'https://f.test/slow' },
        { content: '', path: 'https://f.test/slow' },
      ]),
      single,
    );
    expect(r).toEqual({
      refused: {
        name: 'invalid_attachment',
        message:
          'attachments[1].path: not fetched, the attachments of an email must all be fetched within 1 s',
      },
    });
    expect(fetcher.calls).toHaveLength(1);
  });

  it('lets an internal failure of the fetcher propagate (a 500, not a refusal)', async () => {
    const fetcher = new MemoryAttachmentFetcher().crash('https://f.test/x');
    await expect(
      fetchAttachments(fetcher)(email([{ content: '', path: 'https://f.test/x' }]), single),
    ).rejects.toThrow('fetcher crashed');
  });
});
