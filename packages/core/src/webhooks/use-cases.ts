/**
 * Use-cases of the webhooks API: create (POST /webhooks), update (PATCH /webhooks/:id), delete,
 * rotate the signing secret, replay an event. The body has passed the wire schema; these add the
 * rules that need I/O: the endpoint must be a public host (resolved), a team has at most
 * WEBHOOK_MAX_ENDPOINTS_PER_TEAM endpoints, a rotation keeps the old secret signing for a grace
 * period, a replay delivers a stored event again under its original message id.
 */
import { fieldMessage, notFound, validationError } from '@petrel/contracts';
import { newId } from '../kernel/ids.js';
import { WEBHOOK_MAX_ENDPOINTS_PER_TEAM } from './policy.js';
import type { WebhookDeliveryQueuePort, WebhookEventLogPort, WebhooksPort } from './ports.js';
import type { CreateWebhookInput, UpdateWebhookInput } from './schemas.js';
import { newSigningSecret } from './signing.js';
import { newWebhookEndpoint } from './types.js';
import type { Clock } from '../kernel/clock.js';

export interface WebhookAdminPorts {
  webhooks: WebhooksPort;
  clock: Pick<Clock, 'now'>;
  /** The SSRF check of an endpoint URL (`vetNewEndpoint` with the deployment's policy and resolver). */
  vet: (endpoint: string) => Promise<{ ok: true } | { ok: false; reason: string }>;
  /** How long a rotated-out secret keeps signing (ms). */
  rotationGraceMs: number;
  newSecret?: () => string;
}

async function checkEndpoint(ports: WebhookAdminPorts, endpoint: string): Promise<void> {
  const vetted = await ports.vet(endpoint);
  if (!vetted.ok) throw validationError(fieldMessage(['endpoint'], vetted.reason));
}

export async function createWebhook(
  cmd: { teamId: string; input: CreateWebhookInput },
  ports: WebhookAdminPorts,
): Promise<{ id: string; signing_secret: string }> {
  await checkEndpoint(ports, cmd.input.endpoint);
  if ((await ports.webhooks.count(cmd.teamId)) >= WEBHOOK_MAX_ENDPOINTS_PER_TEAM)
    throw validationError(`a team has at most ${WEBHOOK_MAX_ENDPOINTS_PER_TEAM} webhooks`);
  const now = ports.clock.now();
  const secret = (ports.newSecret ?? newSigningSecret)();
  const id = newId(now);
  await ports.webhooks.create(
    cmd.teamId,
    newWebhookEndpoint({
      id,
      endpoint: cmd.input.endpoint,
      events: cmd.input.events,
      created_at: new Date(now).toISOString(),
      secret,
    }),
  );
  return { id, signing_secret: secret };
}

export async function updateWebhook(
  cmd: { teamId: string; webhookId: string; patch: UpdateWebhookInput },
  ports: WebhookAdminPorts,
): Promise<{ id: string }> {
  const { patch } = cmd;
  if (patch.endpoint !== undefined) await checkEndpoint(ports, patch.endpoint);
  const ok = await ports.webhooks.update(cmd.teamId, cmd.webhookId, {
    ...(patch.endpoint !== undefined && { endpoint: patch.endpoint }),
    ...(patch.events !== undefined && { events: patch.events }),
    ...(patch.status !== undefined && { status: patch.status }),
  });
  if (!ok) throw notFound('Webhook');
  return { id: cmd.webhookId };
}

export async function deleteWebhook(
  cmd: { teamId: string; webhookId: string },
  ports: { webhooks: WebhooksPort },
): Promise<{ id: string }> {
  if (!(await ports.webhooks.delete(cmd.teamId, cmd.webhookId))) throw notFound('Webhook');
  return { id: cmd.webhookId };
}

/**
 * A new secret signs from now on; the one it replaces keeps signing beside it for the grace
 * period, so receivers can switch without dropping a delivery. Rotating again within the grace
 * period drops the oldest (two signatures at most).
 */
export async function rotateWebhookSecret(
  cmd: { teamId: string; webhookId: string },
  ports: WebhookAdminPorts,
): Promise<{ id: string; signing_secret: string }> {
  const secret = (ports.newSecret ?? newSigningSecret)();
  const expires = ports.clock.now() + ports.rotationGraceMs;
  if (!(await ports.webhooks.rotateSecret(cmd.teamId, cmd.webhookId, secret, expires)))
    throw notFound('Webhook');
  return { id: cmd.webhookId, signing_secret: secret };
}

/**
 * Delivers a stored event again (whatever its status), with a fresh run of the retry schedule
 * and the same message id (Svix keeps it on replays: receivers that dedupe on it see a replay
 * of a delivered event as the duplicate it is).
 */
export async function replayWebhookEvent(
  cmd: { teamId: string; webhookId: string; eventId: string },
  ports: { webhooks: WebhooksPort; log: WebhookEventLogPort; queue: WebhookDeliveryQueuePort },
): Promise<{ id: string }> {
  const endpoint = await ports.webhooks.get(cmd.teamId, cmd.webhookId);
  if (!endpoint) throw notFound('Webhook');
  const replay = await ports.log.startReplay(cmd.teamId, cmd.webhookId, cmd.eventId);
  if (replay === null) throw notFound('Webhook event');
  await ports.queue.enqueue([
    { teamId: cmd.teamId, endpointId: cmd.webhookId, eventId: cmd.eventId, replay },
  ]);
  return { id: cmd.eventId };
}
