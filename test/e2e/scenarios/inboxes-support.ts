/**
 * What the inbox scenarios (scenarios/inboxes*.ts) share: a webhook
 * endpoint for `inbox.*` events whose deliveries are verified as Standard Webhooks signatures
 * (https://www.standardwebhooks.com/) with the SDK's `resend.webhooks.verify` and with `svix`,
 * and the record of which `resend.inboxes.*` methods a suite called — so the Redis Cluster suite
 * can prove it drove every method the SDK has, and a method a new SDK adds fails it until a
 * scenario calls it.
 */
import { expect, it } from 'vitest';
import type { Resend } from 'resend';
import { Webhook as SvixWebhook } from 'svix';
import { startHttpReceiver, waitUntil, type HttpReceiver } from '@petrel/testing';
import type { InboxEventType } from '@petrel/contracts';
import { ok, type Stack } from '../helpers.js';
import { recordingSdkCalls, sdkMethodPaths } from '../sdk-methods.js';

export interface InboxHook {
  rx: HttpReceiver;
  secret: string;
  /**
   * The data of the delivery of `type` whose body contains each of `needles` (an id, a JSON
   * fragment), once it arrives, after checking its signature with the SDK and with svix.
   */
  signed(type: InboxEventType, ...needles: string[]): Promise<Record<string, unknown>>;
  stop(): Promise<void>;
}

/** A real HTTP receiver subscribed (through the SDK) to `events` of the stack's team. */
export async function inboxHook(stack: Stack, events: readonly InboxEventType[]): Promise<InboxHook> {
  const rx = await startHttpReceiver();
  const hook = ok(
    await stack.resend.webhooks.create({ endpoint: `${rx.url}/inbox`, events: events as never }),
  );
  const secret = hook.signing_secret;
  return {
    rx,
    secret,
    async signed(type, ...needles) {
      const req = await waitUntil(
        () =>
          rx.requests.find(
            (r) => r.body.includes(`"type":"${type}"`) && needles.every((x) => r.body.includes(x)),
          ),
        { timeoutMs: 20_000, message: `${type} with ${needles.join(', ')} at the webhook receiver` },
      );
      const headers = {
        'svix-id': String(req.headers['svix-id']),
        'svix-timestamp': String(req.headers['svix-timestamp']),
        'svix-signature': String(req.headers['svix-signature']),
      };
      const verified = stack.resend.webhooks.verify({
        payload: req.body,
        headers: {
          id: headers['svix-id'],
          timestamp: headers['svix-timestamp'],
          signature: headers['svix-signature'],
        },
        webhookSecret: secret,
      }) as unknown as { type: string; data: Record<string, unknown> };
      expect(() => new SvixWebhook(secret).verify(req.body, headers)).not.toThrow();
      expect(verified.type).toBe(type);
      return verified.data;
    },
    async stop() {
      await stack.resend.webhooks.remove(hook.id);
      await rx.stop();
    },
  };
}

/**
 * The client with its `inboxes` resource (and every sub-resource) wrapped so each method call
 * adds its path to `calls`; everything else of the client is untouched.
 */
export const recordingInboxCalls = (resend: Resend, calls: Set<string>): Resend =>
  recordingSdkCalls(resend, calls, 'inboxes');

/**
 * A test, registered after a suite's inbox scenarios, that every method path of
 * `sdkMethodPaths('inboxes')` is in `calls` (filled by {@link recordingInboxCalls}).
 */
export function everyInboxMethodCalled(calls: ReadonlySet<string>): void {
  it('inboxes: the scenarios above called every resend.inboxes.* method of the SDK', () => {
    const all = sdkMethodPaths('inboxes');
    // the walk found the resource tree (29 methods in resend 6.x), not an empty object
    expect(all).toEqual(
      expect.arrayContaining(['inboxes.create', 'inboxes.agent.update', 'inboxes.threads.emails.forward']),
    );
    expect(all.length).toBeGreaterThanOrEqual(29);
    expect(all.filter((path) => !calls.has(path))).toEqual([]);
  });
}
