/**
 * The one prom-client registry of the process and the definition of every Petrel metric.
 * Metrics are created lazily (once) so a process only exposes what it uses plus the defaults;
 * each process creates the metrics it writes at start-up, at zero for their known label values
 * (`zeroSeries`), so dashboards and alerts see them before the first event.
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
  smtpSubmissions: once(
    () =>
      new client.Counter({
        name: 'petrel_smtp_submissions_total',
        help: 'SMTP submissions by outcome (accepted, replayed, refused, deferred, too_large, auth_failed)',
        labelNames: ['outcome'],
        registers: [registry],
      }),
  ),
  smtpSubmissionReply: once(
    () =>
      new client.Histogram({
        name: 'petrel_smtp_submission_reply_seconds',
        help: "Time from a submitted message's final dot to the server's reply (parse, checks, acceptance), by reply class (2xx, 4xx, 5xx)",
        labelNames: ['reply'],
        buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
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
  complaints: once(
    () =>
      new client.Counter({
        name: 'petrel_complaints_total',
        help: 'Complaints recorded on sent emails, by the email lane and where they came from (arf, simulated)',
        labelNames: ['lane', 'source'],
        registers: [registry],
      }),
  ),
  broadcastsPaused: once(
    () =>
      new client.Counter({
        name: 'petrel_broadcasts_paused_total',
        help: 'Broadcasts paused by the protection rule, by the rate that breached its threshold',
        labelNames: ['reason'],
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
  automationRunsStarted: once(
    () =>
      new client.Counter({
        name: 'petrel_automation_runs_started_total',
        help: 'Automation runs started (an event matched an enabled automation)',
        registers: [registry],
      }),
  ),
  automationRunsCompleted: once(
    () =>
      new client.Counter({
        name: 'petrel_automation_runs_completed_total',
        help: 'Automation runs that reached the end of every branch',
        registers: [registry],
      }),
  ),
  automationRunsFailed: once(
    () =>
      new client.Counter({
        name: 'petrel_automation_runs_failed_total',
        help: 'Automation runs failed by a step (its error is on the run)',
        registers: [registry],
      }),
  ),
  inboxAgentAnswers: once(
    () =>
      new client.Counter({
        name: 'petrel_inbox_agent_answers_total',
        help: 'Inbox agent runs by outcome: applied, no_action, refused (malformed, unknown_action, not_allowed, invalid_action) or model_error',
        labelNames: ['outcome'],
        registers: [registry],
      }),
  ),
  automationStepDuration: once(
    () =>
      new client.Histogram({
        name: 'petrel_automation_step_duration_seconds',
        help: 'Duration of one automation step job (a sleeping delay or wait counts each wake-up), by step type',
        labelNames: ['type'],
        buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
        registers: [registry],
      }),
  ),
  webhookDeliveries: once(
    () =>
      new client.Counter({
        name: 'petrel_webhook_deliveries_total',
        help: 'Webhook delivery attempts by result (success, retry, failed, refused) and event type',
        labelNames: ['result', 'event_type'],
        registers: [registry],
      }),
  ),
  webhookAttemptLatency: once(
    () =>
      new client.Histogram({
        name: 'petrel_webhook_attempt_duration_seconds',
        help: 'Duration of one webhook delivery attempt (vetting, connect, request, response)',
        labelNames: ['result'],
        buckets: [...ms, 15_000].map((x) => x / 1000),
        registers: [registry],
      }),
  ),
  webhookEventLag: once(
    () =>
      new client.Histogram({
        name: 'petrel_webhook_event_to_delivery_seconds',
        help: 'Time from an event to the end of its first delivery attempt',
        buckets: [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300],
        registers: [registry],
      }),
  ),
  webhookQueueLag: once(
    () =>
      new client.Gauge({
        name: 'petrel_webhook_queue_lag',
        help: 'Webhook work waiting: events not yet read from the streams (stage=stream), deliveries due or delayed (stage=queue)',
        labelNames: ['stage'],
        registers: [registry],
      }),
  ),
  ready: once(
    () =>
      new client.Gauge({
        name: 'petrel_ready',
        help: 'What /ready answers, sampled at each scrape: 1 when the process can work (Redis reachable), else 0',
        registers: [registry],
      }),
  ),
  redisMemoryUsed: once(
    () =>
      new client.Gauge({
        name: 'petrel_redis_memory_used_bytes',
        help: 'Redis used_memory per node (every master of a cluster), sampled by the scheduler',
        labelNames: ['node'],
        registers: [registry],
      }),
  ),
  redisMemoryMax: once(
    () =>
      new client.Gauge({
        name: 'petrel_redis_maxmemory_bytes',
        help: 'Redis maxmemory per node (0 = no limit), sampled by the scheduler',
        labelNames: ['node'],
        registers: [registry],
      }),
  ),
  domainChecks: once(
    () =>
      new client.Counter({
        name: 'petrel_domain_checks_total',
        help: "Periodic DNS checks of sending domains by the domain's status after the check (verified, partially_verified, failed, pending) or error",
        labelNames: ['status'],
        registers: [registry],
      }),
  ),
  rateLimited: once(
    () =>
      new client.Counter({
        name: 'petrel_rate_limited_total',
        help: 'Requests and SMTP submissions refused by a team limit, by kind (rate: requests per second; daily_quota: emails per UTC day)',
        labelNames: ['kind'],
        registers: [registry],
      }),
  ),
  oldestUnfinishedEmailAge: once(
    () =>
      new client.Gauge({
        name: 'petrel_oldest_nonterminal_email_age_seconds',
        help: 'Age of the oldest email not yet sent (scheduled, queued, delivery_delayed) since its job was due, by lane, over all teams; sampled by the scheduler watchdog',
        labelNames: ['lane'],
        registers: [registry],
      }),
  ),
  watchdogActions: once(
    () =>
      new client.Counter({
        name: 'petrel_watchdog_actions_total',
        help: 'What the stuck-email watchdog did, by action (requeued, failed, forgotten, import_requeued)',
        labelNames: ['action'],
        registers: [registry],
      }),
  ),
  webhookEndpointsDisabled: once(
    () =>
      new client.Counter({
        name: 'petrel_webhook_endpoints_disabled_total',
        help: 'Webhook endpoints the dispatcher disabled, by reason (gone: answered 410; failing: no 2xx for WEBHOOK_DISABLE_AFTER_S)',
        labelNames: ['reason'],
        registers: [registry],
      }),
  ),
  // Direct delivery (DELIVERY_MODE=direct). `destination` is an MX host name; the worker drops a
  // destination's series when it forgets the destination (DIRECT_MAX_POOLS bounds them).
  directConcurrencyLimit: once(
    () =>
      new client.Gauge({
        name: 'petrel_direct_concurrency_limit',
        help: 'Adaptive concurrency limit per destination MX host (halved on 421/4.7.x/refused connections)',
        labelNames: ['destination'],
        registers: [registry],
      }),
  ),
  directDeferrals: once(
    () =>
      new client.Counter({
        name: 'petrel_direct_deferrals_total',
        help: 'Direct delivery attempts deferred, by destination MX host and reason (throttled, connection, tls_required, slot_timeout, temporary, dns, mta_sts, warmup)',
        labelNames: ['destination', 'reason'],
        registers: [registry],
      }),
  ),
  // MTA-STS and TLS-RPT (direct delivery): `result` is `success` or an RFC 8460 result type.
  directTlsSessions: once(
    () =>
      new client.Counter({
        name: 'petrel_direct_tls_sessions_total',
        help: 'Sessions to MX hosts under an MTA-STS policy, by policy mode and TLS-RPT result (success or an RFC 8460 result type)',
        labelNames: ['mode', 'result'],
        registers: [registry],
      }),
  ),
  tlsReportsSent: once(
    () =>
      new client.Counter({
        name: 'petrel_tls_reports_total',
        help: 'Daily TLS-RPT reports (RFC 8460) by outcome (sent, skipped: no rua, failed: retried next run)',
        labelNames: ['outcome'],
        registers: [registry],
      }),
  ),
  // Sending IP pools: `pool` is a SENDING_POOLS name, `address` one of its addresses (bounded by
  // the configuration).
  poolSends: once(
    () =>
      new client.Counter({
        name: 'petrel_pool_sends_total',
        help: 'Domain deliveries started from a sending pool address',
        labelNames: ['pool', 'address'],
        registers: [registry],
      }),
  ),
  poolWarmupCap: once(
    () =>
      new client.Gauge({
        name: 'petrel_pool_warmup_cap',
        help: "Today's warm-up cap per destination provider of a pool address (-1: warmed up, no cap)",
        labelNames: ['pool', 'address'],
        registers: [registry],
      }),
  ),
  poolWarmupDeferrals: once(
    () =>
      new client.Counter({
        name: 'petrel_pool_warmup_deferrals_total',
        help: 'Domain deliveries deferred because every address of the pool reached its warm-up cap for the provider',
        labelNames: ['pool'],
        registers: [registry],
      }),
  ),
  fanoutPages: once(
    () =>
      new client.Counter({
        name: 'petrel_broadcast_fanout_pages_total',
        help: 'Broadcast fan-out pages by pace: full speed, or paced (smaller, after a pause) while the transactional lane is busy',
        labelNames: ['pace'],
        registers: [registry],
      }),
  ),
  fanoutPaceDelay: once(
    () =>
      new client.Gauge({
        name: 'petrel_broadcast_fanout_pace_delay_ms',
        help: 'The pause before the latest broadcast fan-out page (0: full speed)',
        registers: [registry],
      }),
  ),
  broadcastLaneConcurrency: once(
    () =>
      new client.Gauge({
        name: 'petrel_broadcast_lane_concurrency',
        help: 'Broadcast-lane jobs this worker process runs at once now: WORKER_BROADCAST_CONCURRENCY, lower while transactional jobs wait',
        registers: [registry],
      }),
  ),
};

type LabelValues = Readonly<Record<string, readonly string[]>>;

/** Every combination of the given values of each label: `{a: [1, 2], b: [x]}` → `{a:1,b:x}, {a:2,b:x}`. */
export function labelCombinations(values: LabelValues): Record<string, string>[] {
  return Object.entries(values).reduce<Record<string, string>[]>(
    (sets, [name, list]) => sets.flatMap((set) => list.map((value) => ({ ...set, [name]: value }))),
    [{}],
  );
}

/**
 * The keys of a record typed by a union of label values, as a list: with the union as type
 * argument the compiler refuses a missing or unknown value, so the list cannot fall behind it.
 */
export const allOf = <T extends string>(values: Record<T, true>): T[] => Object.keys(values) as T[];

const zeroed = new WeakMap<object, Set<string>>();

/**
 * Exports a labelled counter's or histogram's series at zero for every combination of `values`,
 * once (a second call for the same series leaves what was counted since); a metric without
 * labels is at zero once created. A series that appears only
 * with its first event leaves panels on "no data" and lets `rate()`/`increase()` miss that first
 * event; the Prometheus instrumentation guide says to export 0 for series known in advance
 * (https://prometheus.io/docs/practices/instrumentation/#avoid-missing-metrics).
 */
export function zeroSeries(
  metric: client.Counter<string> | client.Histogram<string>,
  values: LabelValues,
): void {
  let done = zeroed.get(metric);
  if (!done) zeroed.set(metric, (done = new Set()));
  for (const labels of labelCombinations(values)) {
    const key = JSON.stringify(Object.entries(labels).sort());
    if (done.has(key)) continue;
    done.add(key);
    if (metric instanceof client.Histogram) metric.zero(labels);
    else metric.inc(labels, 0);
  }
}

export { client as promClient };
