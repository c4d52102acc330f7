/**
 * The commands (files of `lua/`) of the email search indexes (email-search.ts), registered with the
 * others in scripts.ts. The status moves themselves happen in the scripts that change an email's
 * status (petrelRecordEmailEvents, petrelCancelScheduledEmail).
 */
type Arg = string | number;

export interface EmailSearchStoreCommands {
  petrelIndexEmails(numKeys: number, ...keysAndArgv: Arg[]): Promise<number>;
  /** [more (1|0), cursor ms, cursor id, ...kept ids] (petrelEmailSearchPage-n.lua). */
  petrelEmailSearchPage(numKeys: number, ...keysAndArgv: Arg[]): Promise<(string | number)[]>;
  petrelEmailSearchRange(
    index: string,
    direction: 'desc' | 'asc',
    score: string,
    id: string,
    count: number,
    bound: string,
  ): Promise<string[]>;
}
