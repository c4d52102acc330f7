/**
 * Test fixture of the send-queue integration tests: send workers for every lane that record each
 * email they are given, and how often. Not part of the build (tsconfig excludes `*.fixture.ts`).
 */
import type { QueueLayout, SendQueueJob } from '@petrel/contracts';
import { SEND_LANES } from '@petrel/contracts';
import { createSendWorkers, type QueueConnection, type Worker } from './send-queues.js';

export interface RecordingWorkers {
  /** Email id → how many times a worker ran its job (or its group's). */
  seen: Map<string, number>;
  workers: Worker<SendQueueJob>[];
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
        const ids = 'emailIds' in job.data ? job.data.emailIds : [job.data.emailId];
        for (const id of ids) seen.set(id, (seen.get(id) ?? 0) + 1);
      },
      { ...rest, concurrency },
    ),
  );
  return { seen, workers, close: () => Promise.all(workers.map((w) => w.close())).then(() => undefined) };
}
