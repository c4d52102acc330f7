/**
 * The one prom-client registry of the process and the definition of every Petrel metric.
 * Metrics are created lazily (once) so a process only exposes what it uses plus the defaults.
 */
import client from 'prom-client';

export const registry = new client.Registry();
let defaultsOn = false;

export function enableDefaultMetrics(app: string): void {
  if (defaultsOn) return;
  defaultsOn = true;
  registry.setDefaultLabels({ app });
  client.collectDefaultMetrics({ register: registry });
}

const ms = [5, 10, 25, 50, 100, 250, 500, 1000, 2500, 5000, 10000];

function once<T>(make: () => T): () => T {
  let v: T | undefined;
  return () => (v ??= make());
}

export const metrics = {
  httpDuration: once(
    () =>
      new client.Histogram({
        name: 'petrel_http_request_duration_seconds',
        help: 'HTTP request duration by route and status',
        labelNames: ['method', 'route', 'status'],
        buckets: ms.map((x) => x / 1000),
        registers: [registry],
      }),
  ),
  emailsAccepted: once(
    () =>
      new client.Counter({
        name: 'petrel_emails_accepted_total',
        help: 'Emails accepted by endpoint',
        labelNames: ['endpoint'],
        registers: [registry],
      }),
  ),
  idempotency: once(
    () =>
      new client.Counter({
        name: 'petrel_idempotency_total',
        help: 'Idempotency outcomes (replay, mismatch, in_flight, proceed)',
        labelNames: ['outcome'],
        registers: [registry],
      }),
  ),
  sendOutcomes: once(
    () =>
      new client.Counter({
        name: 'petrel_send_outcomes_total',
        help: 'SMTP send outcomes by class (sent, soft_fail, hard_fail)',
        labelNames: ['kind', 'lane'],
        registers: [registry],
      }),
  ),
  smtpLatency: once(
    () =>
      new client.Histogram({
        name: 'petrel_smtp_send_duration_seconds',
        help: 'Duration of one SMTP send',
        labelNames: ['kind'],
        buckets: ms.map((x) => x / 1000),
        registers: [registry],
      }),
  ),
  acceptToDelivered: once(
    () =>
      new client.Histogram({
        name: 'petrel_accept_to_delivered_seconds',
        help: 'Time from API acceptance to the SMTP 250',
        buckets: [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 3600],
        registers: [registry],
      }),
  ),
  jobs: once(
    () =>
      new client.Gauge({
        name: 'petrel_queue_jobs',
        help: 'Jobs by queue and state',
        labelNames: ['queue', 'state'],
        registers: [registry],
      }),
  ),
  jobsProcessed: once(
    () =>
      new client.Counter({
        name: 'petrel_jobs_processed_total',
        help: 'Jobs processed by queue and result',
        labelNames: ['queue', 'result'],
        registers: [registry],
      }),
  ),
};

export { client as promClient };
