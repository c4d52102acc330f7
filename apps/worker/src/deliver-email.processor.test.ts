import { describe, expect, it } from 'vitest';
import type { SendJob } from '@petrel/contracts';
import type { Job } from '@petrel/queue';
import { UnrecoverableError } from '@petrel/queue';
import { emailToDeliver, memoryDeliverDeps } from '@petrel/testing';
import { deliverEmailProcessor } from './deliver-email.processor.js';
import { SoftFailError } from './job-result.js';

const email = emailToDeliver();
const job = (data: unknown, attemptsMade = 0) => ({ id: email.id, data, attemptsMade }) as Job<SendJob>;
const sendJob = { v: 1, teamId: email.teamId, emailId: email.id };

function processor() {
  const deps = memoryDeliverDeps({ retries: 2 });
  deps.emails.put(email);
  return { deps, process: deliverEmailProcessor(deps) };
}

describe('deliverEmailProcessor', () => {
  it('runs deliver-email for the job and completes with the outcome', async () => {
    const { deps, process } = processor();
    await expect(process(job(sendJob))).resolves.toBe('delivered');
    expect(deps.smtp.sent).toHaveLength(1);
  });

  it('passes attemptsMade through: the last retry bounces and completes', async () => {
    const { deps, process } = processor();
    deps.smtp.answer({ kind: 'soft_fail', code: 451, detail: '451 later' });
    await expect(process(job(sendJob, 0))).rejects.toBeInstanceOf(SoftFailError);
    await expect(process(job(sendJob, 2))).resolves.toBe('bounced');
  });

  it('a hard fail is unrecoverable', async () => {
    const { deps, process } = processor();
    deps.smtp.answer({ kind: 'hard_fail', code: 550, detail: '550 no such user' });
    await expect(process(job(sendJob))).rejects.toBeInstanceOf(UnrecoverableError);
  });

  it('refuses a payload that is not a v1 send job', async () => {
    const { deps, process } = processor();
    await expect(process(job({ v: 2, teamId: email.teamId, emailId: email.id }))).rejects.toThrow();
    expect(deps.smtp.sent).toHaveLength(0);
  });
});
