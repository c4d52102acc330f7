/**
 * Test fixture for the store's integration tests: a real Redis for the file, one connection, and
 * a key layout under a unique prefix so files never share keys.
 *
 * By default the Redis is one local redis-server (AOF off). In the `integration-cluster` vitest
 * project (which provides `redisCluster`) it is a real Redis Cluster of three masters, reached
 * through `createRedis` with a `redis+cluster://` URL as production does: the same tests then
 * show that every command finds its node and that Redis itself accepts every script and MULTI
 * (it refuses keys of two slots with CROSSSLOT), besides the store's own slot check, which runs
 * in both modes.
 * Not part of the build (tsconfig excludes `*.fixture.ts`).
 */
import { afterAll, beforeAll, inject } from 'vitest';
import type { EmailContent, EmailEvent, EmailStatus, TeamEvent } from '@petrel/contracts';
import { startRedis, startRedisCluster, uniquePrefix } from '@petrel/testing';
import { createRedis, type RedisClient } from './redis.js';
import { EVENTS_STREAM_FIELD, Keys } from './keys.js';
import type { NewEmail } from './emails.store.js';

export interface StoreFixture {
  readonly redis: RedisClient;
  readonly keys: Keys;
  /** The REDIS_URL of that Redis, for a process of the product started by the test. */
  readonly url: string;
  /** The events on team `teamId`'s stream (what the webhook dispatcher reads), oldest first. */
  events<T = TeamEvent>(teamId: string): Promise<T[]>;
}

declare module 'vitest' {
  export interface ProvidedContext {
    /** Set by the `integration-cluster` project (vitest.config.ts): run against a Redis Cluster. */
    redisCluster?: boolean;
  }
}

/** True when this run targets a Redis Cluster (the `integration-cluster` project). */
export const onCluster = inject('redisCluster') === true;

/** Registers beforeAll/afterAll hooks; the fields are set once beforeAll has run. */
export function useStoreRedis(prefixName: string): StoreFixture {
  let server: { url: string; stop(): Promise<void> } | undefined;
  const fx = {
    async events<T>(teamId: string): Promise<T[]> {
      const entries = await fx.redis.xrange(fx.keys.events(teamId), '-', '+');
      return entries.map(([, fields]) => JSON.parse(fields[fields.indexOf(EVENTS_STREAM_FIELD) + 1]!) as T);
    },
  } as { redis: RedisClient; keys: Keys; url: string } & Pick<StoreFixture, 'events'>;
  beforeAll(async () => {
    server = onCluster
      ? await startRedisCluster({ masters: 3, replicas: 0 })
      : await startRedis({ appendonly: false });
    fx.url = server.url;
    fx.redis = createRedis(server.url);
    fx.keys = new Keys(uniquePrefix(prefixName));
  });
  afterAll(async () => {
    await fx.redis?.quit();
    await server?.stop();
  });
  return fx;
}

let teams = 0;
/** A team id no other test of the file uses, so each test starts from an empty team slot. */
export function nextTeam(): string {
  return `team-${++teams}`;
}

let events = 0;
/** An event of team `t` with a unique id (created now, no data). */
export function storedEvent(type: EmailEvent['type']): EmailEvent {
  return { id: `${type}-${++events}`, type, created_at: new Date().toISOString(), teamId: 't', data: {} };
}

/**
 * Email events of team `teamId` created at `atMs`, as the delivery path writes them: the id
 * `<email>-<type>`, `data.email_id` and, for a broadcast's email, `data.broadcast_id`; `item`
 * pairs one with the status it moves the email to (an entry of `EmailsStore.recordEvents`).
 */
export function emailEventsAt(teamId: string, atMs: number) {
  const event = (
    emailId: string,
    type: EmailEvent['type'],
    broadcastId?: string,
    extra: Record<string, unknown> = {},
  ): EmailEvent => ({
    id: `${emailId}-${type}`,
    type,
    created_at: new Date(atMs).toISOString(),
    teamId,
    data: { email_id: emailId, ...(broadcastId && { broadcast_id: broadcastId }), ...extra },
  });
  const item = (
    emailId: string,
    status: EmailStatus,
    broadcastId?: string,
    extra: Record<string, unknown> = {},
  ) => ({ status, event: event(emailId, `email.${status}` as EmailEvent['type'], broadcastId, extra) });
  return { event, item };
}

/** An email's content as the store keeps it: one recipient, no copies, headers or tags. */
export function storedContent(over: Partial<EmailContent> = {}): EmailContent {
  return {
    from: 'a@acme.test',
    to: ['b@example.test'],
    cc: [],
    bcc: [],
    reply_to: [],
    subject: 's',
    html: '<p>x</p>',
    headers: {},
    tags: [],
    attachments: [],
    ...over,
  };
}

/** An email as `EmailsStore.stage` takes it: queued on the send lane, due at once. */
export function newEmail(
  id: string,
  event: EmailEvent,
  over: Partial<Omit<NewEmail, 'id' | 'event'>> = {},
): NewEmail {
  return {
    id,
    content: storedContent(),
    status: 'queued',
    lane: 'send',
    dueMs: 0,
    messageId: `<${id}@x.test>`,
    event,
    ...over,
  };
}
