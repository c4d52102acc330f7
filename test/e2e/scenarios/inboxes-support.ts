/**
 * What the inbox scenarios (scenarios/inboxes*.ts) share: the SDK answer unwrapper, a webhook
 * endpoint for `inbox.*` events whose deliveries are verified as Standard Webhooks signatures
 * (https://www.standardwebhooks.com/) with the SDK's `resend.webhooks.verify` and with `svix`,
 * and the record of which `resend.inboxes.*` methods a suite called — so the Redis Cluster suite
 * can prove it drove every method the SDK has, and a method a new SDK adds fails it until a
 * scenario calls it.
 */
import { expect, it } from 'vitest';
import { Resend } from 'resend';
import { Webhook as SvixWebhook } from 'svix';
import { startHttpReceiver, waitUntil, type HttpReceiver } from '@petrel/testing';
import type { InboxEventType } from '@petrel/contracts';
import type { Stack } from '../helpers.js';

/** The SDK's answer's data, failing the test with its error otherwise. */
export function ok<T>(r: { data: T | null; error: unknown }): T {
  expect(r.error).toBeNull();
  return r.data!;
}

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

const isResource = (v: unknown): v is object =>
  typeof v === 'object' && v !== null && !(v instanceof Resend) && !Array.isArray(v);

/** The methods a resource object's class declares (not those of Object). */
function methodsOf(o: object): string[] {
  return Object.getOwnPropertyNames(Object.getPrototypeOf(o)).filter(
    (k) => k !== 'constructor' && typeof (o as Record<string, unknown>)[k] === 'function',
  );
}

/**
 * Every method path of the SDK's `inboxes` resource and its sub-resources (`inboxes.create`,
 * `inboxes.threads.emails.reply`, …), read from a client's object graph: what a new SDK version
 * adds shows up here without a change to this list.
 */
export function inboxMethodPaths(): string[] {
  const out: string[] = [];
  const walk = (o: object, path: string): void => {
    for (const m of methodsOf(o)) out.push(`${path}.${m}`);
    for (const [k, v] of Object.entries(o)) if (isResource(v)) walk(v, `${path}.${k}`);
  };
  walk(new Resend('re_method_listing').inboxes, 'inboxes');
  return out.sort();
}

/**
 * The client with its `inboxes` resource (and every sub-resource) wrapped so each method call
 * adds its path to `calls`; everything else of the client is untouched.
 */
export function recordingInboxCalls(resend: Resend, calls: Set<string>): Resend {
  const wrap = <T extends object>(target: T, path: string): T =>
    new Proxy(target, {
      get(t, prop) {
        const v: unknown = Reflect.get(t, prop, t);
        if (typeof prop !== 'string') return v;
        if (typeof v === 'function')
          return (...args: unknown[]) => {
            calls.add(`${path}.${prop}`);
            return (v as (...a: unknown[]) => unknown).apply(t, args);
          };
        return isResource(v) ? wrap(v, `${path}.${prop}`) : v;
      },
    });
  return new Proxy(resend, {
    get(t, prop) {
      const v: unknown = Reflect.get(t, prop, t);
      return prop === 'inboxes' && isResource(v) ? wrap(v, 'inboxes') : v;
    },
  });
}

/**
 * A test, registered after a suite's inbox scenarios, that every method path of
 * {@link inboxMethodPaths} is in `calls` (filled by {@link recordingInboxCalls}).
 */
export function everyInboxMethodCalled(calls: ReadonlySet<string>): void {
  it('inboxes: the scenarios above called every resend.inboxes.* method of the SDK', () => {
    const all = inboxMethodPaths();
    // the walk found the resource tree (29 methods in resend 6.x), not an empty object
    expect(all).toEqual(
      expect.arrayContaining(['inboxes.create', 'inboxes.agent.update', 'inboxes.threads.emails.forward']),
    );
    expect(all.length).toBeGreaterThanOrEqual(29);
    expect(all.filter((path) => !calls.has(path))).toEqual([]);
  });
}
