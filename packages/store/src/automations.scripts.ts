/**
 * The commands of the automations and automation-runs stores: their Lua is in `lua/` (shared parts
 * in `lua/includes/`: finish-step, expire-run, current-step-status), loaded by the one registry of
 * scripts.ts (names `petrel<Verb><Noun>`, slot-checked on every call). Every key is in KEYS and
 * carries the team's `{tag}`.
 *
 * A run's writes are compare-and-sets: nothing changes once the run's `status` is not `running`; a
 * step record moves only from the status the caller read (`expected`); a wait ends once (HDEL of
 * the run's `wait:<step>` field answers 1 to one caller only — the event or the timeout, whichever
 * comes first). Step records are JSON built by the store; the scripts decode only their `status`.
 */
type Arg = string | number;

export interface AutomationStoreCommands {
  petrelSaveAutomation(...keysAndArgv: Arg[]): Promise<number>;
  petrelDeleteAutomation(...keysAndArgv: Arg[]): Promise<number>;
  petrelCreateAutomationRun(...keysAndArgv: Arg[]): Promise<number>;
  petrelSetAutomationStep(numKeys: number, ...keysAndArgv: Arg[]): Promise<number>;
  petrelCompleteAutomationStep(...keysAndArgv: Arg[]): Promise<[number, number]>;
  petrelResolveAutomationWait(...keysAndArgv: Arg[]): Promise<[number, number]>;
  petrelFailAutomationStep(...keysAndArgv: Arg[]): Promise<number>;
  petrelCancelAutomationRun(numKeys: number, ...keysAndArgv: Arg[]): Promise<number>;
}
