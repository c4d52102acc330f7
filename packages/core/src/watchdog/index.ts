export { sweepStuckEmails, DEFAULT_SWEEP_BATCH } from './sweep-stuck-emails.js';
export type { SweepOptions, SweepResult } from './sweep-stuck-emails.js';
export { decideStuck, retryWindowMs, UNFINISHED_STATUSES } from './stuck-decision.js';
export type { StuckDecision, StuckInput } from './stuck-decision.js';
export type * from './ports.js';
