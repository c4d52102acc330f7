/**
 * The commands (files of `lua/`) of the per-team limits (rate-limit.store.ts), loaded by the one
 * registry of scripts.ts (same naming, same slot check on every call). Both read the team's own
 * limit from its record and take from its counter in the same step: one round trip per request, and
 * a limit changed with the CLI holds from the next request on. Every key carries the team's tag.
 */
type Arg = string | number;

/** The scripts as commands of a connection, with their replies. */
export interface RateLimitStoreCommands {
  petrelTakeRateLimit(team: string, allowance: string, ...argv: Arg[]): Promise<(number | string)[]>;
  petrelTakeDailyQuota(team: string, counter: string, ...argv: Arg[]): Promise<number[]>;
}
