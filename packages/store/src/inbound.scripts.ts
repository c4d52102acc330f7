/**
 * The command (a file of `lua/`) of the received-emails store (inbound.store.ts), loaded by the one
 * registry of scripts.ts (same naming, same slot check on every call). Every key is in KEYS and
 * carries the team's `{tag}`.
 */
type Arg = string | number | Buffer;

/** The scripts as commands of a connection, with their replies. */
export interface InboundStoreCommands {
  petrelStoreInboundEmail(
    record: string,
    raw: string,
    listing: string,
    stream: string,
    ...argv: Arg[]
  ): Promise<number>;
}
