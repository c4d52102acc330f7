/**
 * The command of lua/petrelCountEmailEvents-5.lua (email-metrics.store.ts), registered with the
 * others in scripts.ts; its `$[metrics.*]` values are in email-metrics.fields.ts.
 */
type Arg = string | number;

export interface EmailMetricsStoreCommands {
  petrelCountEmailEvents(
    record: string,
    hour: string,
    recipients: string,
    links: string,
    linkClicks: string,
    ...argv: Arg[]
  ): Promise<number>;
}
