/**
 * Test fixture of the send-queue integration tests: send workers for every lane that record each
 * email they are given, and how often. Not part of the build (tsconfig excludes `*.fixture.ts`).
 */
import type { QueueLayout, SendJob } from '@petrel/contracts';
import { SEND_LANES } from '@petrel/contracts';
import { createSendWorkers, type QueueConnection, type Worker } from './send-queues.js';

export interface RecordingWorkers {
  /** Email id → how many times a worker ran its job. */
  seen: Map<string, number>;
  workers: Worker<SendJob>[];
  close(): Promise<void>;
}

export function recordingWorkers(opts: {
  connection: QueueConnection;
  prefix: string;
  shards: number;
  previousShards?: QueueLayout;
  concurrency?: number;
}): RecordingWorkers {
  const seen = new Map<string, number>();
  const { concurrency = 8, ...rest } = opts;
  const workers = SEND_LANES.flatMap((lane) =>
    createSendWorkers(
      lane,
      async (job) => {
        seen.set(job.data.emailId, (seen.get(job.data.emailId) ?? 0) + 1);
      },
      { ...rest, concurrency },
    ),
  );
  return { seen, workers, close: () => Promise.all(workers.map((w) => w.close())).then(() => undefined) };
}
