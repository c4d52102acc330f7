/**
 * Test fixture of the dispatcher's integration tests: a webhook endpoint of `teamId` written
 * straight into the store, subscribed to `contact.created` (what the tests publish).
 * Not part of the build (tsconfig excludes `*.fixture.ts`).
 */
import { newId, newSigningSecret, newWebhookEndpoint } from '@petrel/core';
import type { WebhooksStore } from '@petrel/store';

/** Creates the endpoint posting to `url`; resolves with its id. */
export async function addContactEndpoint(store: WebhooksStore, teamId: string, url: string): Promise<string> {
  const webhookId = newId();
  await store.create(
    teamId,
    newWebhookEndpoint({
      id: webhookId,
      endpoint: url,
      events: ['contact.created'],
      created_at: new Date().toISOString(),
      secret: newSigningSecret(),
    }),
  );
  return webhookId;
}
