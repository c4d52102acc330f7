/**
 * SMTP submission on one redis-server (scenarios/smtp-submission.ts), and the built SMTP
 * process (`npm run start:smtp`, apps/smtp/dist/main.js) killed with SIGKILL in the middle of
 * submissions: every message that got its 250 is an email that is delivered; and with its Redis
 * gone, a submission is answered 451 (the client keeps the message and retries).
 */
import { describe, expect, it } from 'vitest';
import { freePort, startRedis, uniquePrefix } from '@petrel/testing';
import { ApiKeysStore, Keys, createRedis } from '@petrel/store';
import { fileStack, startApp } from './helpers.js';
import {
  RawSmtp,
  SMTP_SUBMISSION_ENV,
  idOf,
  smtpSubmissionScenarios,
  submissionTransport,
} from './scenarios/smtp-submission.js';

const stack = fileStack({ env: SMTP_SUBMISSION_ENV });

smtpSubmissionScenarios(() => stack);

describe('the SMTP process alone, killed mid-session', () => {
  it('kill -9 while clients submit: every message answered 250 is an email, delivered once', async () => {
    const port = await freePort();
    const smtp = await startApp('smtp', {
      REDIS_URL: stack.redis.url,
      REDIS_KEY_PREFIX: stack.prefix,
      SMTP_SUBMISSION_PORT: String(port),
      SMTP_SUBMISSION_TLS_PORT: 'off',
      SMTP_INBOUND_PORT: 'off',
      LOG_LEVEL: 'warn',
      // the stack's team has no verified domain (the all-in-one's default: any from-domain)
      ENFORCE_VERIFIED_DOMAINS: 'false',
    });
    // one session stopped in the middle of its DATA when the process dies
    const partial = await RawSmtp.authenticated(port, stack.key);
    await partial.command('MAIL FROM:<hello@acme.test>');
    await partial.command('RCPT TO:<partial@smtp-kill.test>');
    await partial.command('DATA');
    partial.write('From: Acme <hello@acme.test>\r\nTo: partial@smtp-kill.test\r\nSubject: cut\r\n\r\nhalf');

    const transport = submissionTransport(port, stack.key, {
      pool: true,
      maxConnections: 4,
      maxMessages: Infinity,
    });
    const accepted: string[] = [];
    let failed = 0;
    let killed = false;
    try {
      // four clients submit without pause; the 40th 250 triggers the kill while the others are
      // in their transactions, and each client stops at its first failure after it
      await Promise.all(
        Array.from({ length: 4 }, async (_, lane) => {
          for (let i = 0; ; i++) {
            try {
              const info = await transport.sendMail({
                from: 'Acme <hello@acme.test>',
                to: `kill.${lane}.${i}@smtp-kill.test`,
                subject: `Kill ${lane}/${i}`,
                text: 'x'.repeat(2_000),
              });
              accepted.push(idOf(info.response));
              if (accepted.length === 40) {
                killed = true;
                smtp.kill('SIGKILL');
              }
            } catch {
              failed++;
              if (killed) return;
            }
          }
        }),
      );
    } finally {
      transport.close();
      await smtp.stop();
    }
    expect(await partial.reply()).toBe('closed');
    expect(accepted.length).toBeGreaterThanOrEqual(40);
    for (const id of accepted) {
      const { data, error } = await stack.resend.emails.get(id);
      expect(error).toBeNull();
      expect(data?.id).toBe(id);
    }
    await stack.settled(accepted);
    for (const id of accepted) expect(stack.sink.byMessageId(`<${id}@acme.test>`)).toHaveLength(1);
    // the kill did cut sessions (mid-flight), and the message cut in its DATA is no email
    expect(failed).toBeGreaterThanOrEqual(4);
    await stack.drained();
    expect(stack.sink.messages.filter((m) => m.envelope.to.includes('partial@smtp-kill.test'))).toEqual([]);
  });
});

describe('the SMTP process alone, Redis gone', () => {
  it('a message submitted while Redis is unreachable is answered 451, not lost and not refused', async () => {
    const redis = await startRedis();
    const prefix = uniquePrefix('smtp451');
    const admin = createRedis(redis.url);
    const keys = new Keys(prefix);
    const apiKeys = new ApiKeysStore(admin, keys);
    const key = 're_smtp451_0123456789abcdef';
    await apiKeys.ensureToken(await apiKeys.ensureDefaultTeam(), key);
    admin.disconnect();
    const port = await freePort();
    const smtp = await startApp('smtp', {
      REDIS_URL: redis.url,
      REDIS_KEY_PREFIX: prefix,
      SMTP_SUBMISSION_PORT: String(port),
      SMTP_SUBMISSION_TLS_PORT: 'off',
      SMTP_INBOUND_PORT: 'off',
      LOG_LEVEL: 'silent',
      ENFORCE_VERIFIED_DOMAINS: 'false',
    });
    try {
      const s = await RawSmtp.authenticated(port, key);
      expect(await s.command('MAIL FROM:<hello@acme.test>')).toMatch(/^250 /);
      expect(await s.command('RCPT TO:<later@smtp.test>')).toMatch(/^250 /);
      expect(await s.command('DATA')).toMatch(/^354 /);
      await redis.stop();
      s.write('From: Acme <hello@acme.test>\r\nTo: later@smtp.test\r\nSubject: s\r\n\r\nhi\r\n.\r\n');
      expect(await s.reply(20_000)).toMatch(/^451 4\.3\.0 /);
      s.end();
    } finally {
      await smtp.stop();
      await redis.stop().catch(() => undefined);
    }
  });
});
