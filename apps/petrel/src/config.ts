import { loadConfig, z } from '@petrel/config';
import { apiConfigShape } from '@petrel/api';
import { workerConfigShape } from '@petrel/worker';
import { schedulerConfigShape } from '@petrel/scheduler';

const bool = z
  .enum(['1', '0', 'true', 'false', 'yes', 'no', 'on', 'off', ''])
  .transform((v) => ['1', 'true', 'yes', 'on'].includes(v));

/** All-in-one: every app's variables, plus the embedded Redis and capture SMTP ports. */
export const petrelConfigShape = {
  ...apiConfigShape,
  ...workerConfigShape,
  ...schedulerConfigShape,
  /** Port of the embedded redis-server (used only when REDIS_URL is unset). */
  EMBEDDED_REDIS_PORT: z.coerce.number().int().min(1).max(65_535).default(6390),
  /** Port of the local capture SMTP server (used only when SMTP_URL is unset). */
  CAPTURE_SMTP_PORT: z.coerce.number().int().min(0).max(65_535).default(2525),
  /** The development profile allows webhooks to loopback/private addresses. */
  WEBHOOK_ALLOW_PRIVATE_NETWORKS: bool.default(true),
};

export type PetrelConfig = ReturnType<typeof loadPetrelConfig>;

export function loadPetrelConfig(env: Record<string, string | undefined> = process.env) {
  return loadConfig(petrelConfigShape, env);
}
