import { dataEnv, loadConfig, logEnv, metricsEnv, redisEnv, smtpEnv, workerEnv } from '@petrel/config';

export const workerConfigShape = {
  ...redisEnv,
  ...logEnv,
  ...metricsEnv,
  ...smtpEnv,
  ...workerEnv,
  ...dataEnv,
};

export type WorkerConfig = ReturnType<typeof loadWorkerConfig>;

export function loadWorkerConfig(env: Record<string, string | undefined> = process.env) {
  return loadConfig(workerConfigShape, env);
}
