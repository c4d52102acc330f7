import type { ContactPropertyValue } from '@petrel/contracts';

/**
 * What an email's placeholders read of its contact, taken at the fan-out and stored with the
 * email: only the fields its content uses, and only the non-empty ones (an absent field renders
 * its fallback, as an empty one would). The address is the email's recipient. `{}` when the
 * content uses contact fields the contact does not have.
 */
export interface ContactValues {
  first_name?: string;
  last_name?: string;
  /** The custom properties the content uses that the contact has a value for. */
  properties?: Record<string, ContactPropertyValue>;
  /** The definitions' `fallback_value` of the used properties the contact has no value for. */
  fallbacks?: Record<string, ContactPropertyValue>;
}
