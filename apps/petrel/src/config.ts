import { boolEnv, metricsEnv, z } from '@petrel/config';
import { configLoader } from '@petrel/runtime';
import { apiConfigShape } from '@petrel/api';
import { workerConfigShape } from '@petrel/worker';
import { schedulerConfigShape } from '@petrel/scheduler';
import { smtpConfigShape } from '@petrel/smtp';
import { webhooksConfigShape } from '@petrel/webhooks';

/** All-in-one: every app's variables, plus the embedded Redis and capture SMTP ports. */
export const petrelConfigShape = {
  ...apiConfigShape,
  ...workerConfigShape,
  ...schedulerConfigShape,
  ...smtpConfigShape,
  ...webhooksConfigShape,
  // One health + /metrics server for the whole process.
  ...metricsEnv('petrel'),
  /** Port of the embedded redis-server (used only when REDIS_URL is unset). */
  EMBEDDED_REDIS_PORT: z.coerce.number().int().min(1).max(65_535).default(6390),
  /** Port of the local capture SMTP server (used only when SMTP_URL is unset). */
  CAPTURE_SMTP_PORT: z.coerce.number().int().min(0).max(65_535).default(2525),
  /** The development profile sends from any `from` domain (`ENFORCE_VERIFIED_DOMAINS=true` to check). */
  ENFORCE_VERIFIED_DOMAINS: boolEnv.default(false),
  /** The development profile allows webhooks to loopback/private addresses. */
  WEBHOOK_ALLOW_PRIVATE_NETWORKS: boolEnv.default(true),
};

export const loadPetrelConfig = configLoader(petrelConfigShape);
export type PetrelConfig = ReturnType<typeof loadPetrelConfig>;
