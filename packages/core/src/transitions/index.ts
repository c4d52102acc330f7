export * from './machine.js';
export * from './broadcast.js';
export * from './contact-import.js';
export * from './automation-run.js';
export * from './email.js';
export * from './domain.js';
export * from './webhook.js';
import { AUTOMATION_RUN_MACHINE, AUTOMATION_STEP_MACHINE } from './automation-run.js';
import { BROADCAST_MACHINE } from './broadcast.js';
import { CONTACT_IMPORT_MACHINE } from './contact-import.js';
import { DOMAIN_MACHINE, DOMAIN_RECORD_MACHINE } from './domain.js';
import { EMAIL_MACHINE } from './email.js';
import type { StatusMachine } from './machine.js';
import { WEBHOOK_ENDPOINT_MACHINE, WEBHOOK_EVENT_MACHINE } from './webhook.js';

/** Every status machine of Petrel: the store builds its Lua guards from these. */
export const STATUS_MACHINES: readonly StatusMachine[] = [
  EMAIL_MACHINE,
  BROADCAST_MACHINE,
  CONTACT_IMPORT_MACHINE,
  AUTOMATION_RUN_MACHINE,
  AUTOMATION_STEP_MACHINE,
  DOMAIN_MACHINE,
  DOMAIN_RECORD_MACHINE,
  WEBHOOK_ENDPOINT_MACHINE,
  WEBHOOK_EVENT_MACHINE,
];
