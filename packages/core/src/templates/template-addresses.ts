/**
 * A template's from and reply_to become an email's from and reply_to when the send gives none,
 * so they must be addresses a send would accept.
 */
import { validationError } from '@petrel/contracts';
import { parseAddress } from '../kernel/mailbox.js';

export function checkTemplateAddresses(fields: {
  from?: string | null | undefined;
  reply_to?: readonly string[] | null | undefined;
}): void {
  if (fields.from) {
    const parsed = parseAddress(fields.from);
    if (!parsed.ok) throw validationError(`from: is not a valid address (${parsed.reason})`);
  }
  fields.reply_to?.forEach((addr, i) => {
    const parsed = parseAddress(addr);
    if (!parsed.ok) throw validationError(`reply_to[${i}]: is not a valid address (${parsed.reason})`);
  });
}

/** Aliases are unique within a team. */
export const aliasTaken = (alias: string | null | undefined) =>
  validationError(`alias: '${alias ?? ''}' is already used by another template`);
