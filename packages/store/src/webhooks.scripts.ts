/**
 * The commands (files of `lua/`) of the webhooks store, loaded by the one registry of scripts.ts
 * (names `petrel<Verb><Noun>`, slot-checked on every call). Every key is in KEYS and carries the
 * team's `{tag}`; the global set of teams with webhooks is never touched here (it is used alone).
 *
 * Nullable fields are stored as '' (an absent hash field reads the same).
 */
type Arg = string | number;

export interface WebhookStoreCommands {
  petrelCreateWebhook(webhook: string, listing: string, stream: string, ...argv: Arg[]): Promise<number>;
  petrelUpdateWebhook(webhook: string, ...argv: Arg[]): Promise<number>;
  petrelDeleteWebhook(webhook: string, listing: string, log: string, id: string): Promise<number>;
  petrelRotateWebhookSecret(webhook: string, secret: string, expiresMs: number): Promise<number>;
  petrelAddWebhookEvents(numKeys: number, ...keysAndArgv: Arg[]): Promise<number[]>;
  petrelStartWebhookAttempt(webhook: string, entry: string): Promise<[string[], (string | null)[]]>;
  petrelRecordWebhookAttempts(numKeys: number, ...keysAndArgv: Arg[]): Promise<string[]>;
  petrelReplayWebhookEvent(entry: string): Promise<number>;
}
