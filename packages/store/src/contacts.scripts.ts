/**
 * The commands (files of `lua/`) of the contacts, segments and contact-properties stores, loaded by
 * the one registry of scripts.ts (same names `petrel<Verb><Noun>`, same slot check on every call).
 * Every key a script touches is in KEYS and carries the team's `{tag}`; an event a write describes
 * is appended to the team's events stream by the same script.
 *
 * Contact writes that read first (update, delete, topic choices) are optimistic: the contact hash's
 * `rev` counter moves on every write of the contact, its segments or its topic choices, and a
 * script writes only if `rev` is still the one its caller read (else the caller retries).
 */
type Arg = string | number;

/** The contact scripts as commands of a connection, with their replies. */
export interface ContactStoreCommands {
  petrelCreateContact(numKeys: number, ...keysAndArgv: Arg[]): Promise<[string, string]>;
  petrelUpdateContact(contact: string, unsubscribed: string, stream: string, ...argv: Arg[]): Promise<number>;
  petrelDeleteContact(numKeys: number, ...keysAndArgv: Arg[]): Promise<number>;
  petrelSetContactTopics(numKeys: number, ...keysAndArgv: Arg[]): Promise<number[]>;
  petrelSetContactSegment(...keysAndArgv: Arg[]): Promise<number>;
  petrelUpsertContacts(numKeys: number, ...keysAndArgv: Arg[]): Promise<number>;
  petrelCreateContactProperty(...keysAndArgv: Arg[]): Promise<number>;
  petrelDeleteContactProperty(...keysAndArgv: Arg[]): Promise<number>;
}
