export { relayOutbox } from './relay-outbox.js';
export type { OutboxRelayOptions, OutboxRelayResult } from './relay-outbox.js';
export type * from './ports.js';
