import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createTransport } from 'nodemailer';
import { afterAll, describe, expect, it } from 'vitest';
import { startCaptureSmtp } from './capture-smtp.js';

const dataDir = mkdtempSync(join(tmpdir(), 'petrel-capture-'));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

describe('capture SMTP server (all-in-one without SMTP_URL)', () => {
  it('keeps each message as an .eml file named by its Message-ID, with the envelope on top', async () => {
    const capture = await startCaptureSmtp({ dataDir, port: 0 });
    const transport = createTransport({ url: capture.url, ignoreTLS: true });
    try {
      await transport.sendMail({
        envelope: { from: 'bounce@acme.test', to: ['a@example.test', 'hidden@example.test'] },
        from: 'Acme <hello@acme.test>',
        to: 'a@example.test',
        subject: 'Hi',
        text: 'It works',
        messageId: '<e1@acme.test>',
      });
      expect(capture.count()).toBe(1);
      const files = readdirSync(capture.dir);
      expect(files).toHaveLength(1);
      expect(files[0]).toMatch(/_e1@acme\.test\.eml$/);
      const eml = readFileSync(join(capture.dir, files[0]!), 'utf8');
      expect(eml).toMatch(/^X-Petrel-Envelope-From: bounce@acme\.test\r\n/);
      expect(eml).toContain('X-Petrel-Envelope-To: a@example.test, hidden@example.test\r\n');
      expect(eml).toContain('Subject: Hi');
    } finally {
      transport.close();
      await capture.stop();
    }
  });
});
