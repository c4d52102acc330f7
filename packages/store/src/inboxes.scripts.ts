/**
 * The commands (files of `lua/`) of the inbox store (inboxes.store.ts), loaded by the one registry
 * of scripts.ts. Every key is in KEYS and carries the team's `{tag}`: an inbox's threads, messages,
 * labels and indexes live in its team's slot, so each write is one script.
 */
type Arg = string | number;

/** A script over an inbox record, the team's inbox listing, the address index and the events stream. */
type InboxRecordScript = (
  record: string,
  listing: string,
  addresses: string,
  stream: string,
  ...argv: Arg[]
) => Promise<number>;

/** The scripts as commands of a connection, with their replies. */
export interface InboxStoreCommands {
  petrelCreateInbox: InboxRecordScript;
  petrelUpdateInboxRecord(record: string, stream: string, ...argv: Arg[]): Promise<number>;
  petrelDeleteInbox: InboxRecordScript;
  petrelWriteInboxThread(numKeys: number, ...keysAndArgv: Arg[]): Promise<number>;
  petrelWriteInboxDraft(
    draft: string,
    files: string,
    drafts: string,
    stream: string,
    thread: string,
    ...argv: Arg[]
  ): Promise<number>;
}
