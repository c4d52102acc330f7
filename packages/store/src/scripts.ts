/**
 * Every Lua script of the store, in one registry: each atomic multi-key step is a named script
 * (a file of `lua/`, loaded by lua-files.ts; its command's arguments and reply typed below or in
 * the `*.scripts.ts` interface of its feature),
 * registered on a connection as an ioredis command (`defineCommand`, so it runs by EVALSHA) and
 * called by that name; no store sends an anonymous EVAL.
 *
 * Names are `petrel<Verb><Noun>`: the prefix keeps them apart from BullMQ's own commands, which
 * BullMQ defines on the same connection. `numberOfKeys` is fixed where the key count is; `null`
 * marks a script whose first argument is its key count. Every key a script touches is passed in
 * KEYS (never built inside Lua), as Redis Cluster requires
 * (https://redis.io/docs/latest/develop/interact/programmability/eval-intro/), and all of them
 * hash to one slot: every call through this registry, and every MULTI or pipeline made with
 * {@link transaction} / {@link pipeline}, is checked (slots.ts) and refused with a
 * CrossSlotError otherwise.
 */
import type { ChainableCommander } from 'ioredis';
import { sharedBatchCommands, type RedisClient } from './redis.js';
import { assertOneSlot, oneSlotBatch } from './slots.js';
import type { ContactStoreCommands } from './contacts.scripts.js';
import type { ContactImportStoreCommands } from './contact-imports.scripts.js';
import type { BroadcastStoreCommands } from './broadcasts.scripts.js';
import type { InboundStoreCommands } from './inbound.scripts.js';
import type { WebhookStoreCommands } from './webhooks.scripts.js';
import type { EmailSearchStoreCommands } from './email-search.scripts.js';
import { COUNTED_STATUSES } from './email-stats.statuses.js';
import type { AutomationStoreCommands } from './automations.scripts.js';
import type { DomainStoreCommands } from './domains.scripts.js';
import type { CustomEventStoreCommands } from './custom-events.scripts.js';
import type { RateLimitStoreCommands } from './rate-limit.scripts.js';
import type { WatchdogStoreCommands } from './watchdog.scripts.js';
import type { SoftBounceStoreCommands } from './soft-bounces.scripts.js';
import type { InboxStoreCommands } from './inboxes.scripts.js';
import type { RequestLogStoreCommands } from './request-logs.scripts.js';
import type { OAuthStoreCommands } from './oauth.scripts.js';
import { EMAIL_FINISHED_RANK, STATUS_MACHINES } from '@petrel/core';
import { loadLuaScripts, luaSet, machineValues, type LuaScript } from './lua-files.js';
import { EMAIL_METRICS_LUA_VALUES } from './email-metrics.fields.js';

type Arg = string | number;

/**
 * The `$[…]` values the script files use: every status machine's guards and statuses (core's
 * transition tables), the statuses the hourly email counters count (email-stats.ts), and the
 * rank from which an email is finished for the stuck-email watchdog (`sent` and after: below
 * it the email sits in its team's unfinished index of its lane, `Keys.unfinishedEmails`).
 */
export const LUA_VALUES: Readonly<Record<string, string>> = {
  ...machineValues(STATUS_MACHINES),
  'email.counted': luaSet(COUNTED_STATUSES),
  ...EMAIL_METRICS_LUA_VALUES,
  'email.finishedRank': String(EMAIL_FINISHED_RANK),
};

/** Every script, by command name, from the files of `lua/` (lua-files.ts). */
export const SCRIPTS: Readonly<Record<string, LuaScript>> = loadLuaScripts(LUA_VALUES);

type ScriptName = keyof StoreCommands;

/** The scripts as commands of a connection, with their replies. */
export interface StoreCommands
  extends
    ContactStoreCommands,
    ContactImportStoreCommands,
    BroadcastStoreCommands,
    WebhookStoreCommands,
    EmailSearchStoreCommands,
    AutomationStoreCommands,
    DomainStoreCommands,
    CustomEventStoreCommands,
    InboundStoreCommands,
    RateLimitStoreCommands,
    WatchdogStoreCommands,
    SoftBounceStoreCommands,
    InboxStoreCommands,
    RequestLogStoreCommands,
    OAuthStoreCommands {
  petrelClaimIdempotencyKey(key: string, ...argv: Arg[]): Promise<string[]>;
  petrelCompleteIdempotencyKey(key: string, ...argv: Arg[]): Promise<number>;
  petrelReleaseIdempotencyKey(key: string, owner: string): Promise<number>;
  petrelAcceptEmails(numKeys: number, ...keysAndArgv: Arg[]): Promise<number>;
  petrelRecordEmailEvents(numKeys: number, ...keysAndArgv: Arg[]): Promise<number>;
  petrelRecordManyEmailEvents(numKeys: number, ...keysAndArgv: Arg[]): Promise<(number | string)[]>;
  petrelReadEmails(numKeys: number, ...keys: string[]): Promise<string[][]>;
  petrelCreateBroadcastEmails(numKeys: number, ...keysAndArgv: Arg[]): Promise<number>;
  petrelDeleteEmail(numKeys: number, ...keysAndArgv: Arg[]): Promise<number>;
  petrelSegmentMembersAfter(members: string, score: Arg, id: string, limit: number): Promise<string[]>;
  petrelCancelScheduledEmail(
    record: string,
    timeline: string,
    unfinishedSend: string,
    unfinishedBroadcast: string,
    scheduledIndex: string,
    canceledIndex: string,
    eventJson: string,
    rank: number,
  ): Promise<number>;
  petrelSetFieldsIfExists(key: string, ...pairs: Arg[]): Promise<number>;
  petrelReadRecipientStates(
    numberOfKeys: number,
    ...keysThenMailboxes: string[]
  ): Promise<(number | string | null)[]>;
  petrelCreateTemplate(...keysAndArgv: Arg[]): Promise<number>;
  petrelUpdateTemplate(...keysAndArgv: Arg[]): Promise<string>;
  petrelPublishTemplate(key: string, ...argv: Arg[]): Promise<number>;
  petrelDeleteTemplate(numKeys: number, ...keysAndArgv: Arg[]): Promise<number>;
  petrelCreateTopic(...keysAndArgv: Arg[]): Promise<number>;
  petrelUpdateTopic(...keysAndArgv: Arg[]): Promise<number>;
  petrelDeleteTopic(...keysAndArgv: Arg[]): Promise<number>;
  petrelAddSuppressions(numKeys: number, ...keysAndArgv: Arg[]): Promise<[string, number][]>;
  petrelRemoveSuppressions(numKeys: number, ...keysAndArgv: Arg[]): Promise<number[]>;
}

/** The same commands queued on a transaction (their replies come with `exec()`). */
export type QueuedStoreCommands = {
  [K in ScriptName]: (...args: Parameters<StoreCommands[K]>) => ChainableCommander;
};

const defined = new WeakSet<RedisClient>();

/** The KEYS of a call to the store's script `name` with `args`, or undefined for any other command. */
function scriptKeys(name: string, args: unknown[]): string[] | undefined {
  const script = (SCRIPTS as Record<string, { numberOfKeys: number | null }>)[name];
  if (!script) return undefined;
  const n = script.numberOfKeys;
  return (n === null ? args.slice(1, 1 + Number(args[0])) : args.slice(0, n)).map(String);
}

/**
 * Register every script on `redis` (once per connection) and return it typed with the commands.
 * Each command checks that its KEYS share one hash slot before it is sent (the registry's call
 * path: no script reaches Redis unchecked). Batches go through {@link transaction} or
 * {@link pipeline}, which check their queued scripts the same way.
 */
export function defineScripts(redis: RedisClient): RedisClient & StoreCommands {
  if (!defined.has(redis)) {
    const commands = redis as unknown as Record<string, (...args: unknown[]) => unknown>;
    for (const [name, s] of Object.entries(SCRIPTS)) {
      redis.defineCommand(
        name,
        s.numberOfKeys === null ? { lua: s.lua } : { lua: s.lua, numberOfKeys: s.numberOfKeys },
      );
      const call = commands[name]!;
      commands[name] = function checkedScript(this: unknown, ...args: unknown[]) {
        try {
          assertOneSlot(name, scriptKeys(name, args)!);
        } catch (err) {
          return Promise.reject(err); // as Redis's own refusal would arrive
        }
        return call.apply(this, args);
      };
    }
    defined.add(redis);
    sharedBatchCommands(redis); // a connection not made by createRedis (e.g. a test's)
  }
  return redis as RedisClient & StoreCommands;
}

/**
 * A MULTI on `redis` (from {@link defineScripts}, so the store's scripts can be queued on it)
 * whose commands must all use one hash slot: the one way the store opens a transaction. `what`
 * names it in the CrossSlotError a command of another slot raises.
 */
export function transaction(redis: RedisClient, what: string): QueuedStoreCommands & ChainableCommander {
  return oneSlotBatch(what, redis.multi(), scriptKeys) as QueuedStoreCommands & ChainableCommander;
}

/**
 * A pipeline under the same rule: a Redis Cluster client sends one pipeline to one node, which
 * only the keys of one slot are sure to share.
 */
export function pipeline(redis: RedisClient, what: string): ChainableCommander {
  return oneSlotBatch(what, redis.pipeline(), scriptKeys);
}

/** Execute a transaction; throws when Redis aborted it or the first error of a failed command. */
export async function execAll(multi: ChainableCommander): Promise<unknown[]> {
  const results = await multi.exec();
  if (!results) throw new Error('Redis transaction aborted');
  const failed = results.find(([err]) => err);
  if (failed) throw failed[0];
  return results.map(([, value]) => value);
}
