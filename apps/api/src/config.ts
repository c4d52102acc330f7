import {
  apiEnv,
  automationEnv,
  dashboardEnv,
  dnsEnv,
  inboxAgentEnv,
  requestLogEnv,
  smtpInboundEnv,
} from '@petrel/config';
import { acceptanceEnv, configLoader, processEnv } from '@petrel/runtime';

export const apiConfigShape = {
  ...processEnv('api'),
  ...acceptanceEnv,
  ...apiEnv,
  ...dnsEnv,
  ...requestLogEnv,
  ...dashboardEnv,
  ...automationEnv,
  /** The receiving domains an inbox address may be at (besides the team's verified domains). */
  INBOUND_DOMAINS: smtpInboundEnv.INBOUND_DOMAINS,
  /** Whether inboxes' agents run (agent.get answers `Petrel-Agent-Runner: on|off`). */
  INBOX_AGENT_URL: inboxAgentEnv.INBOX_AGENT_URL,
};

export const loadApiConfig = configLoader(apiConfigShape);
export type ApiConfig = ReturnType<typeof loadApiConfig>;
