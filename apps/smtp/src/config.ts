import {
  apiEnv,
  dataEnv,
  dnsEnv,
  domainsEnv,
  inboxAgentEnv,
  limitsEnv,
  recipientDomainsEnv,
  loadConfig,
  logEnv,
  metricsEnv,
  queueEnv,
  redisEnv,
  smtpInboundEnv,
  smtpSubmissionEnv,
  webhookEnv,
} from '@petrel/config';

/** The SMTP app: its servers, and what accepting an email needs (the same stores as the API). */
export const smtpConfigShape = {
  ...redisEnv,
  ...logEnv,
  ...metricsEnv('smtp'),
  ...queueEnv,
  ...dataEnv,
  ...limitsEnv,
  // REFUSE_NON_MAIL_DOMAINS: recipients at reserved domains refused at acceptance
  ...recipientDomainsEnv,
  // the from-domain check of every submission (ENFORCE_VERIFIED_DOMAINS), as on POST /emails
  ...domainsEnv,
  ...webhookEnv,
  IDEMPOTENCY_LOCK_MS: apiEnv.IDEMPOTENCY_LOCK_MS,
  ...smtpSubmissionEnv,
  ...smtpInboundEnv,
  // the inbound checks' lookups (INBOUND_AUTH)
  ...dnsEnv,
  /** Set: mail filed into an inbox whose agent has actions queues an agent run. */
  INBOX_AGENT_URL: inboxAgentEnv.INBOX_AGENT_URL,
};

export type SmtpConfig = ReturnType<typeof loadSmtpConfig>;

export function loadSmtpConfig(env: Record<string, string | undefined> = process.env) {
  return loadConfig(smtpConfigShape, env);
}
