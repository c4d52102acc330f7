/**
 * The commands (files of `lua/`) of the contact-imports store, loaded by the one registry of
 * scripts.ts (same names `petrel<Verb><Noun>`, same slot check on every call). Each takes the
 * import's record and, where it ends or claims a run, the list of the upload's chunks: both under
 * the team's hash tag.
 */
type Arg = string | number;

export interface ContactImportStoreCommands {
  petrelClaimContactImport(record: string, chunks: string, ...argv: Arg[]): Promise<unknown>;
  petrelCheckpointContactImport(record: string, ...argv: Arg[]): Promise<unknown>;
  petrelFinishContactImport(record: string, chunks: string, ...argv: Arg[]): Promise<unknown>;
  petrelAbandonContactImport(record: string, chunks: string, ...argv: Arg[]): Promise<unknown>;
}
