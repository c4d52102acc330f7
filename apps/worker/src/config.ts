import {
  automationEnv,
  broadcastLaneYieldEnv,
  broadcastProtectionEnv,
  softBounceEnv,
  dataEnv,
  deliveryEnv,
  directCareEnv,
  dnsEnv,
  domainsEnv,
  inboxAgentEnv,
  limitsEnv,
  recipientDomainsEnv,
  linksEnv,
  loadConfig,
  logEnv,
  metricsEnv,
  queueEnv,
  redisEnv,
  smtpEnv,
  workerEnv,
  z,
} from '@petrel/config';

export const workerConfigShape = {
  ...redisEnv,
  ...logEnv,
  ...metricsEnv('worker'),
  ...smtpEnv,
  ...deliveryEnv,
  ...directCareEnv,
  ...dnsEnv,
  ...domainsEnv,
  ...queueEnv,
  ...workerEnv,
  // the thresholds that pause a broadcast, and how long its held emails wait
  ...broadcastProtectionEnv,
  // how many soft-bounced emails in a row, over how many days, suppress an address
  ...softBounceEnv,
  ...dataEnv,
  ...linksEnv,
  ...automationEnv,
  // the inbox agent's runs (INBOX_AGENT_URL unset: none are queued, none run)
  ...inboxAgentEnv,
  // DAILY_QUOTA: an automation's emails count against the team's day like any other
  ...limitsEnv,
  // REFUSE_NON_MAIL_DOMAINS: recipients at reserved domains refused at acceptance
  ...recipientDomainsEnv,
  /**
   * Jobs of the broadcast lane one process runs at once (WORKER_CONCURRENCY is the transactional
   * lane's). Smaller than the transactional lane's so a broadcast's sends leave the process's CPU
   * to password resets: with a fast relay more in flight adds little throughput, only latency to
   * the other lane (bench phase `lanes`). Raise it for a slow relay, where each send mostly waits.
   */
  WORKER_BROADCAST_CONCURRENCY: z.coerce.number().int().min(1).max(1000).default(20),
  // ...which it lowers at run time while transactional jobs wait (lane-yield.ts)
  ...broadcastLaneYieldEnv,
};

export type WorkerConfig = ReturnType<typeof loadWorkerConfig>;

export function loadWorkerConfig(env: Record<string, string | undefined> = process.env) {
  return loadConfig(workerConfigShape, env);
}
