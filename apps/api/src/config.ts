import {
  apiEnv,
  dashboardEnv,
  dataEnv,
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
  ...webhookEnv,
  ...dashboardEnv,
};

export type ApiConfig = ReturnType<typeof loadApiConfig>;

export function loadApiConfig(env: Record<string, string | undefined> = process.env) {
  return loadConfig(apiConfigShape, env);
}
