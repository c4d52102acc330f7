import {
  apiEnv,
  automationEnv,
  dashboardEnv,
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
  requestLogEnv,
  webhookEnv,
  smtpInboundEnv,
} from '@petrel/config';

export const apiConfigShape = {
  ...redisEnv,
  ...logEnv,
  ...metricsEnv('api'),
  ...apiEnv,
  ...queueEnv,
  ...dataEnv,
  ...dnsEnv,
  ...domainsEnv,
  ...limitsEnv,
  // REFUSE_NON_MAIL_DOMAINS: recipients at reserved domains refused at acceptance
  ...recipientDomainsEnv,
  ...requestLogEnv,
  ...webhookEnv,
  ...dashboardEnv,
  ...automationEnv,
  /** The receiving domains an inbox address may be at (besides the team's verified domains). */
  INBOUND_DOMAINS: smtpInboundEnv.INBOUND_DOMAINS,
  /** Whether inboxes' agents run (agent.get answers `Petrel-Agent-Runner: on|off`). */
  INBOX_AGENT_URL: inboxAgentEnv.INBOX_AGENT_URL,
};

export type ApiConfig = ReturnType<typeof loadApiConfig>;

export function loadApiConfig(env: Record<string, string | undefined> = process.env) {
  return loadConfig(apiConfigShape, env);
}
