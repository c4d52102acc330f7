import { lookup } from 'node:dns/promises';
import type { HostResolver } from '@petrel/core';

/**
 * The system resolver (getaddrinfo, as a connection would resolve): every address of a name, so
 * the SSRF check of a webhook endpoint sees each address the dispatcher may connect to.
 */
export const systemHostResolver: HostResolver = async (name) =>
  (await lookup(name, { all: true, verbatim: true })).map((a) => a.address);
