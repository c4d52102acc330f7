/**
 * What every /inboxes route shares: its dependencies, the calling team and the inbox the path
 * names (by id or by address: the SDK's `InboxSelector`, percent-encoded), and the ports core's
 * inbox use-cases take.
 */
import type { Request, Response } from 'express';
import type { InboxRecord } from '@petrel/contracts';
import { findInbox, newId, teamReceivingDomains, type InboxesPort, type ReceivingDomain } from '@petrel/core';
import { inboxMessageContent, type DomainsStore, type EmailsStore, type InboundStore } from '@petrel/store';
import { pathParam } from '../route-table.js';

export interface InboxesDeps {
  /** The inboxes, their threads and labels (the runtime's store). */
  inboxes: InboxesPort;
  domains: Pick<DomainsStore, 'all'>;
  /** Where messages' bodies are read (a message's id is its received or sent email's). */
  inbound: Pick<InboundStore, 'get' | 'raw'>;
  emails: Pick<EmailsStore, 'get' | 'getForSend'>;
  /** INBOUND_DOMAINS: an entry without a team is the default team's. */
  inboundDomains: readonly ReceivingDomain[];
  defaultTeamId: string;
  /** Whether a model endpoint runs the agents (INBOX_AGENT_URL set): agent.get says so in a header. */
  agentRunner?: boolean;
}

/** The calling team (the auth middleware's). */
export const teamOf = (res: Response): string => res.locals.auth.teamId;

/** The calling team's inbox named by the path's `:inbox`; 404 for any other. */
export const inboxFinder =
  (inboxes: InboxesPort) =>
  (req: Request, res: Response): Promise<InboxRecord> =>
    findInbox(inboxes, teamOf(res), pathParam(req, 'inbox'));

/** The routes' shared parts: the store, the use-cases' ports, message bodies, the path's inbox. */
export function inboxesContext(deps: InboxesDeps) {
  const store = deps.inboxes;
  return {
    store,
    ports: {
      inboxes: store,
      receiving: teamReceivingDomains({
        configured: deps.inboundDomains,
        defaultTeamId: deps.defaultTeamId,
        domains: deps.domains,
      }),
      clock: Date,
      ids: { newId: () => newId() },
    },
    content: inboxMessageContent(deps),
    inboxOf: inboxFinder(store),
  };
}

export type InboxesContext = ReturnType<typeof inboxesContext>;
