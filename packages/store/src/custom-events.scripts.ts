/**
 * The commands (files of `lua/`) of the custom events store (custom-events.store.ts), loaded by the
 * one registry of scripts.ts (names `petrel<Verb><Noun>`, slot-checked on every call). Every key is
 * in KEYS and carries the team's `{tag}`.
 */
type Arg = string | number;

/** The scripts as commands of a connection, with their replies. */
export interface CustomEventStoreCommands {
  petrelCreateCustomEvent(
    definition: string,
    listing: string,
    names: string,
    ...argv: Arg[]
  ): Promise<number>;
  petrelSetCustomEventSchema(definition: string, ...argv: Arg[]): Promise<number>;
  petrelDeleteCustomEvent(
    definition: string,
    listing: string,
    names: string,
    id: string,
    name: string,
  ): Promise<number>;
  petrelRecordReceivedEvent(listing: string, data: string, ...argv: Arg[]): Promise<number>;
}
