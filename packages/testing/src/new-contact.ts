import type { NewContact } from '@petrel/core';

let seq = 0;
/** A new contact with a unique address (the contacts port contract's and core's tests' fixture). */
export const newContact = (over: Partial<NewContact> = {}): NewContact => ({
  email: `Ada.${++seq}@Example.test`,
  first_name: 'Ada',
  last_name: null,
  unsubscribed: false,
  properties: {},
  segments: [],
  topics: [],
  ...over,
});
