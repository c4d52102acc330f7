import {
  dataEnv,
  linksEnv,
  loadConfig,
  logEnv,
  metricsEnv,
  queueEnv,
  redisEnv,
  smtpEnv,
  workerEnv,
} from '@petrel/config';

export const workerConfigShape = {
  ...redisEnv,
  ...logEnv,
  ...metricsEnv('worker'),
  ...smtpEnv,
  ...queueEnv,
  ...workerEnv,
  ...dataEnv,
  ...linksEnv,
};

export type WorkerConfig = ReturnType<typeof loadWorkerConfig>;

export function loadWorkerConfig(env: Record<string, string | undefined> = process.env) {
  return loadConfig(workerConfigShape, env);
}
