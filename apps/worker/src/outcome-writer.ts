/**
 * The `outcomes` port of deliver-email: the email store's writes, retried with backoff while
 * Redis is unavailable. Once the SMTP server has answered, this write is what stands between a
 * Redis outage and a duplicate send: a job whose outcome was never written is sent again when it
 * is retried. Any other error, or an outage that outlasts the window, is thrown (the job attempt
 * fails and is retried: after a 250, that is the duplicate the chaos tests count).
 */
import type { EmailRecordWriter } from '@petrel/core';
import { isRedisUnavailable } from '@petrel/store';
import { log } from '@petrel/observability';

/** How long to keep trying to record an SMTP outcome while Redis is unavailable. */
const OUTCOME_RETRY_WINDOW_MS = 60_000;
const FIRST_PAUSE_MS = 100;
const MAX_PAUSE_MS = 2_000;

export interface OutcomeWriterOptions {
  windowMs?: number;
  /** The retry window's clock (tests move it); default `Date`. */
  clock?: { now(): number };
  sleep?: (ms: number) => Promise<void>;
}

export function outcomeWriter(store: EmailRecordWriter, opts: OutcomeWriterOptions = {}): EmailRecordWriter {
  const windowMs = opts.windowMs ?? OUTCOME_RETRY_WINDOW_MS;
  const clock = opts.clock ?? Date;
  const sleep = opts.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));

  async function persist<T>(write: () => Promise<T>): Promise<T> {
    const deadline = clock.now() + windowMs;
    let pause = FIRST_PAUSE_MS;
    for (let tries = 1; ; tries++) {
      try {
        return await write();
      } catch (err) {
        if (!isRedisUnavailable(err) || clock.now() + pause > deadline) throw err;
        if (tries === 1) {
          log().warn(
            { err: (err as Error).message },
            'Redis unavailable while recording a send outcome; retrying',
          );
        }
        await sleep(pause);
        pause = Math.min(pause * 2, MAX_PAUSE_MS);
      }
    }
  }

  return {
    recordEvents: (...args) => persist(() => store.recordEvents(...args)),
    setFields: (...args) => persist(() => store.setFields(...args)),
  };
}
