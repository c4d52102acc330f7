/**
 * The one-slot rule, checked on every call. Redis Cluster runs a script or a MULTI only when all
 * its keys hash to one slot (Redis Cluster specification, "Keys hash tags"; a script's keys must
 * be declared in KEYS: https://redis.io/docs/latest/develop/interact/programmability/eval-intro/),
 * and refuses it with CROSSSLOT otherwise. A single redis-server never refuses, so without this
 * check a cross-slot script would pass every single-node test and fail only in production.
 *
 * Every script call (through the registry in scripts.ts) and every transaction or pipeline the
 * store builds (`transaction`, `pipeline` there) is checked here, always: every test that touches
 * Redis is also a slot check, and a feature that declares keys of two slots fails with
 * {@link CrossSlotError} naming the script and both keys.
 *
 * Cost, measured on the 2-core machine of the ingest bench (Node 20): 15–25 µs for the 202 keys
 * of a 100-email acceptance, i.e. 0.15–0.25 µs per email against ~80 µs of API CPU per email
 * (about 0.3 %); a call with 1 to 3 keys costs under 0.3 µs. Negligible, so it has no switch.
 */
import { keySlot as calculateSlot } from '@petrel/contracts';
import { Command, type ChainableCommander } from 'ioredis';

export class CrossSlotError extends Error {
  constructor(
    readonly what: string,
    readonly first: { key: string; slot: number },
    readonly other: { key: string; slot: number },
  ) {
    super(
      `${what} uses keys of two hash slots: '${first.key}' (slot ${first.slot}) and ` +
        `'${other.key}' (slot ${other.slot}); Redis Cluster would refuse it (CROSSSLOT). ` +
        `Give every key of one script or transaction the same {hash tag}.`,
    );
    this.name = 'CrossSlotError';
  }
}

/** Where the hash tag of `key` is, as Redis Cluster reads it: `{` and the first `}` after it. */
function tagBounds(key: string): [open: number, close: number] | undefined {
  const open = key.indexOf('{');
  if (open === -1) return undefined;
  const close = key.indexOf('}', open + 1);
  return close === -1 || close === open + 1 ? undefined : [open, close];
}

/** Throws {@link CrossSlotError} unless every key of `keys` hashes to one slot. */
export function assertOneSlot(what: string, keys: readonly string[]): void {
  if (keys.length < 2) return;
  const first = keys[0]!;
  const bounds = tagBounds(first);
  const tag = bounds && first.slice(bounds[0], bounds[1] + 1);
  let slot = -1;
  for (let i = 1; i < keys.length; i++) {
    const key = keys[i]!;
    // The usual case, keys of one team: the same `{tag}` at the same place (the same first `{`,
    // and the tag holds no `}`) is the same slot, without a CRC (10 µs instead of ~150 µs for
    // the 202 keys of a 100-email acceptance).
    if (bounds && key.indexOf('{') === bounds[0] && key.slice(bounds[0], bounds[1] + 1) === tag) continue;
    if (slot === -1) slot = calculateSlot(first);
    const other = calculateSlot(key);
    if (other !== slot) throw new CrossSlotError(what, { key: first, slot }, { key, slot: other });
  }
}

/** The keys of one queued call, when the caller knows them (the store's scripts); else undefined. */
export type KnownKeys = (command: string, args: unknown[]) => string[] | undefined;

/** Redis's own commands: the key positions ioredis knows (the ones its Cluster client routes by). */
function commandKeys(command: string, args: unknown[]): string[] {
  const name = command.endsWith('Buffer') ? command.slice(0, -'Buffer'.length) : command;
  return new Command(name, args as never[]).getKeys().map(String);
}

/** Methods of a batch that queue no command. */
const BATCH_CONTROL = new Set(['exec', 'execBuffer', 'discard', 'addBatch', 'then', 'catch', 'finally']);

/**
 * `batch` (a MULTI or a pipeline) with every queued command checked as it is queued, so that all
 * the commands of the batch together use one slot. `known` answers for the store's scripts.
 */
export function oneSlotBatch(what: string, batch: ChainableCommander, known: KnownKeys): ChainableCommander {
  // Every key must share the slot of the batch's first key: each command's keys are checked
  // against it alone (checking the whole list again per command made a pipeline of n commands
  // cost n², 1,000 HGETALLs of a fan-out page half a million comparisons).
  let first: string | undefined;
  const proxy: ChainableCommander = new Proxy(batch, {
    get(target, prop) {
      const value: unknown = Reflect.get(target, prop, target);
      if (typeof value !== 'function') return value;
      const fn = value as (...a: unknown[]) => unknown;
      if (typeof prop !== 'string' || BATCH_CONTROL.has(prop)) return fn.bind(target);
      return (...args: unknown[]) => {
        const keys = known(prop, args) ?? commandKeys(prop, args);
        first ??= keys[0];
        if (first !== undefined && keys.length > 0) assertOneSlot(what, [first, ...keys]);
        const res = fn.apply(target, args);
        return res === target ? proxy : res;
      };
    },
  });
  return proxy;
}
