import { dnsEnv, inboxAgentEnv, smtpInboundEnv, smtpSubmissionEnv } from '@petrel/config';
import { acceptanceEnv, configLoader, processEnv } from '@petrel/runtime';

/** The SMTP app: its servers, and what accepting an email needs (the same stores as the API). */
export const smtpConfigShape = {
  ...processEnv('smtp'),
  // every submission passes the checks of POST /emails
  ...acceptanceEnv,
  ...smtpSubmissionEnv,
  ...smtpInboundEnv,
  // the inbound checks' lookups (INBOUND_AUTH)
  ...dnsEnv,
  /** Set: mail filed into an inbox whose agent has actions queues an agent run. */
  INBOX_AGENT_URL: inboxAgentEnv.INBOX_AGENT_URL,
};

export const loadSmtpConfig = configLoader(smtpConfigShape);
export type SmtpConfig = ReturnType<typeof loadSmtpConfig>;
