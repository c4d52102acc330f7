/**
 * Contact imports in a worker process: their own queue, CONTACT_IMPORT_CONCURRENCY at a time. On
 * shutdown a running import stops at its next checkpoint and goes back to the queue (see the
 * processor).
 */
import { createContactImportWorker } from '@petrel/queue';
import { log } from '@petrel/observability';
import type { Runtime } from '@petrel/runtime';
import type { WorkerConfig } from './config.js';
import { jobWorkerOptions } from './job-workers.js';
import { contactImportProcessor } from './contact-import.processor.js';

export function startContactImports(config: WorkerConfig, rt: Runtime): { close(): Promise<void> } {
  let stopping = false;
  const worker = createContactImportWorker(
    contactImportProcessor({
      imports: rt.stores.contactImports,
      contacts: rt.stores.contacts,
      stopping: () => stopping,
    }),
    jobWorkerOptions(config, rt, config.CONTACT_IMPORT_CONCURRENCY),
  );
  worker.on('error', (err) => log().error({ err }, 'contact import worker error'));
  worker.on('stalled', (jobId) =>
    log().warn({ jobId }, 'contact import stalled (its worker stopped); it resumes from its checkpoint'),
  );
  return {
    close() {
      stopping = true;
      return worker.close();
    },
  };
}
