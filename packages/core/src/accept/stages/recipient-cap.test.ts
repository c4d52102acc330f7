import { describe, expect, it } from 'vitest';
import { emailContent } from '@petrel/testing';
import { capRecipients, DEFAULT_MAX_RECIPIENTS_PER_EMAIL } from './recipient-cap.js';
import { prepareWith } from './stage.js';

const list = (n: number, who: string) => Array.from({ length: n }, (_, i) => `${who}${i}@example.test`);
const single = { teamId: 't1', index: 0, batch: false };

describe('capRecipients stage', () => {
  it('lets exactly the cap through (to + cc + bcc), and refuses one more, naming the field', async () => {
    const stage = capRecipients(100);
    const atCap = emailContent({ to: list(50, 'to'), cc: list(30, 'cc'), bcc: list(20, 'bcc') });
    expect(await stage(atCap, single)).toEqual({ email: atCap });
    const over = { ...atCap, bcc: list(21, 'bcc') };
    expect(await stage(over, single)).toEqual({
      refused: {
        message: 'bcc: at most 100 recipients per email in to, cc and bcc together (this email has 101)',
      },
    });
  });

  it('names cc when to and cc alone pass the cap', async () => {
    const r = await capRecipients(100)(emailContent({ to: list(50, 'to'), cc: list(51, 'cc') }), single);
    expect(r).toMatchObject({ refused: { message: expect.stringMatching(/^cc: at most 100 /) } });
  });

  it('defaults to 1,000 (the SMTP submission RCPT cap)', async () => {
    expect(DEFAULT_MAX_RECIPIENTS_PER_EMAIL).toBe(1_000);
    const stage = capRecipients();
    const email = emailContent({ to: list(50, 'to'), cc: list(475, 'cc'), bcc: list(475, 'bcc') });
    expect(await stage(email, single)).toEqual({ email });
    expect(await stage({ ...email, bcc: list(476, 'bcc') }, single)).toMatchObject({
      refused: {
        message: expect.stringMatching(/^bcc: at most 1000 recipients .* \(this email has 1001\)$/),
      },
    });
  });

  it('names the email of a batch by its index, as a validation_error (422)', async () => {
    const out = await prepareWith([capRecipients(100)]).prepare(
      't1',
      [
        { index: 0, email: emailContent() },
        { index: 7, email: emailContent({ cc: list(200, 'cc') }) },
      ],
      'batch',
    );
    expect(out.emails.map((e) => e.index)).toEqual([0]);
    expect(out.errors).toEqual([
      {
        index: 7,
        message:
          'emails[7].cc: at most 100 recipients per email in to, cc and bcc together (this email has 201)',
      },
    ]);
  });
});
