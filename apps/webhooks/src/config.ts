import { webhookDispatchEnv, webhookEnv } from '@petrel/config';
import { configLoader, processEnv } from '@petrel/runtime';

export const webhooksConfigShape = {
  ...processEnv('webhooks'),
  ...webhookEnv,
  ...webhookDispatchEnv,
};

export const loadWebhooksConfig = configLoader(webhooksConfigShape);
export type WebhooksConfig = ReturnType<typeof loadWebhooksConfig>;
