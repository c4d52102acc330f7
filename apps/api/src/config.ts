import { apiEnv, dataEnv, loadConfig, logEnv, metricsEnv, redisEnv, webhookEnv } from '@petrel/config';

export const apiConfigShape = {
  ...redisEnv,
  ...logEnv,
  ...metricsEnv,
  ...apiEnv,
  ...dataEnv,
  ...webhookEnv,
};

export type ApiConfig = ReturnType<typeof loadApiConfig>;

export function loadApiConfig(env: Record<string, string | undefined> = process.env) {
  return loadConfig(apiConfigShape, env);
}
