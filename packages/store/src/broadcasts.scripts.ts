/**
 * The commands (files of `lua/`) of the broadcasts store, loaded by the one registry of scripts.ts
 * (same names `petrel<Verb><Noun>`, same slot check on every call). One script per state change of
 * a broadcast, each a compare-and-set on the record's `status` (and a bump of its `rev`): two
 * changes racing on one broadcast (a DELETE and the fan-out starting at the due time, a cancel and
 * a checkpoint) are ordered by Redis, and the second sees the first's status.
 *
 * Replies of the transitions: `{'ok', <the record's fields flat>}` (the record as the change left
 * it; for a delete, as it was), `{'missing'}` or `{'status', <current status>}`.
 */
type Arg = string | number;

/** A transition's reply (see the header). */
export type BroadcastCasReply = ['ok', ...string[]] | ['missing'] | ['status', string];

export interface BroadcastStoreCommands {
  petrelCreateBroadcast(record: string, listing: string, ...argv: Arg[]): Promise<number>;
  petrelUpdateBroadcast(record: string, ...argv: Arg[]): Promise<BroadcastCasReply>;
  petrelScheduleBroadcast(record: string, dueMs: number, dueIso: string): Promise<BroadcastCasReply>;
  petrelCancelBroadcast(record: string): Promise<BroadcastCasReply>;
  petrelDeleteBroadcast(record: string, listing: string, id: string): Promise<BroadcastCasReply>;
  petrelStartBroadcast(record: string, nowMs: number): Promise<BroadcastCasReply>;
  petrelCheckpointBroadcast(record: string, ...argv: Arg[]): Promise<number>;
  petrelFinishBroadcast(record: string, sentIso: string): Promise<number>;
  petrelPauseBroadcast(record: string, stream: string, ...argv: Arg[]): Promise<BroadcastCasReply>;
  petrelResumeBroadcast(record: string): Promise<BroadcastCasReply>;
}
