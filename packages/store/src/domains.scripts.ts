/**
 * The commands (files of `lua/`) of the domains store, loaded by the one registry of scripts.ts
 * (names `petrel<Verb><Noun>`, slot-checked on every call). Every key is in KEYS and carries the
 * team's `{tag}`; the global check schedule is never touched here (it is used alone).
 */
type Arg = string | number;

export interface DomainStoreCommands {
  petrelCreateDomain(...keysAndArgv: Arg[]): Promise<number>;
  petrelUpdateDomain(...keysAndArgv: Arg[]): Promise<number>;
  petrelDeleteDomain(...keysAndArgv: Arg[]): Promise<number>;
}
