import {
  apiEnv,
  automationEnv,
  dashboardEnv,
  dataEnv,
  dnsEnv,
  domainsEnv,
  limitsEnv,
  loadConfig,
  logEnv,
  metricsEnv,
  queueEnv,
  redisEnv,
  webhookEnv,
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
  ...webhookEnv,
  ...dashboardEnv,
  ...automationEnv,
};

export type ApiConfig = ReturnType<typeof loadApiConfig>;

export function loadApiConfig(env: Record<string, string | undefined> = process.env) {
  return loadConfig(apiConfigShape, env);
}
