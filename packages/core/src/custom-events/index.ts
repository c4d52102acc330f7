export * from './ports.js';
export * from './coerce-payload.js';
export * from './use-cases.js';
export type { AutomationTriggers, ReceivedEvent } from '../automations/ports.js';
