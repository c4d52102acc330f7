import {
  dataEnv,
  loadConfig,
  logEnv,
  metricsEnv,
  redisEnv,
  webhookDispatchEnv,
  webhookEnv,
} from '@petrel/config';

export const webhooksConfigShape = {
  ...redisEnv,
  ...logEnv,
  ...metricsEnv('webhooks'),
  ...dataEnv,
  ...webhookEnv,
  ...webhookDispatchEnv,
};

export type WebhooksConfig = ReturnType<typeof loadWebhooksConfig>;

export function loadWebhooksConfig(env: Record<string, string | undefined> = process.env) {
  return loadConfig(webhooksConfigShape, env);
}
