export { runHousekeeping } from './run-housekeeping.js';
export type { HousekeepingOptions, HousekeepingResult } from './run-housekeeping.js';
export type * from './ports.js';
