/**
 * A broadcast's recipients by what happened to them (`resend.broadcasts.recipients`) and its
 * clicked links (`resend.broadcasts.clickedLinks`), from indexes the event-recording script
 * keeps per broadcast as its emails are sent and tracked: one sorted set of `<group>:<emailId>`
 * members (a group per event type, and one per bounce kind) and the clicked links with their
 * clicks and unique clicks. A page is a range of one group, never a walk over the broadcast.
 */
import { notFound, validationError } from '@petrel/contracts';
import { emailSearchQueryTerms } from '../dashboard/email-search.js';
import { BOUNCE_KINDS, type BounceKind } from './metric-names.js';

/** The SDK's `BroadcastRecipientEventType`. */
export const BROADCAST_RECIPIENT_TYPES = [
  'sent',
  'delivered',
  'opened',
  'clicked',
  'bounced',
  'complained',
  'unsubscribed',
  'suppressed',
] as const;
export type BroadcastRecipientType = (typeof BROADCAST_RECIPIENT_TYPES)[number];

/**
 * The groups a broadcast's recipient index keeps: every recipient type, and bounces once more
 * by kind (`bounced_permanent`…: the counters' names), so `bounce_type` is a range too.
 */
export const RECIPIENT_GROUPS: readonly string[] = [
  ...BROADCAST_RECIPIENT_TYPES,
  ...BOUNCE_KINDS.map((k) => `bounced_${k}`),
];

export interface RecipientsQuery {
  group: string;
  type: BroadcastRecipientType;
  /** The search index term of the recipient's address (`to:<mailbox>`), when filtered by it. */
  toTerm?: string;
}

export function parseRecipientsQuery(q: Record<string, unknown>): RecipientsQuery {
  const one = (name: string): string | undefined => {
    const v = q[name];
    if (v === undefined) return undefined;
    if (typeof v !== 'string') throw validationError(`${name}: must be given once, as a string`);
    return v;
  };
  const type = one('type');
  if (type === undefined)
    throw validationError(`type: is required, one of ${BROADCAST_RECIPIENT_TYPES.join(', ')}`);
  if (!(BROADCAST_RECIPIENT_TYPES as readonly string[]).includes(type))
    throw validationError(`type: must be one of ${BROADCAST_RECIPIENT_TYPES.join(', ')}`);
  const bounceType = one('bounce_type');
  let group = type;
  if (bounceType !== undefined) {
    if (type !== 'bounced') throw validationError('bounce_type: only valid when type is bounced');
    if (!(BOUNCE_KINDS as readonly string[]).includes(bounceType))
      throw validationError(`bounce_type: must be one of ${BOUNCE_KINDS.join(', ')}`);
    group = `bounced_${bounceType}`;
  }
  const email = one('email');
  let toTerm: string | undefined;
  if (email !== undefined) {
    try {
      // the list page's recipient term: the same mailbox however it was spelled
      toTerm = emailSearchQueryTerms({ to: email })[0];
    } catch {
      throw validationError('email: must be an email address');
    }
  }
  return { group, type: type as BroadcastRecipientType, ...(toTerm !== undefined && { toTerm }) };
}

/** What the index and the email's record say of one recipient. */
export interface BroadcastRecipientState {
  emailId: string;
  contactId: string | null;
  email: string;
  opens: number;
  clicks: number;
  bounceKind: BounceKind | null;
  links: { url: string; clicks: number }[];
}

/** A row's opaque cursor: the email id, base64url (the SDK: "opaque cursor identifying this row"). */
export const recipientCursor = (emailId: string): string => Buffer.from(emailId).toString('base64url');
export function recipientCursorEmailId(cursor: string, name: string): string {
  const id = Buffer.from(cursor, 'base64url').toString();
  if (!/^[0-9a-f-]{36}$/i.test(id)) throw validationError(`${name}: not a cursor of this list`);
  return id;
}
export const linkCursor = (url: string): string => Buffer.from(url).toString('base64url');
export function linkCursorUrl(cursor: string, name: string): string {
  const url = Buffer.from(cursor, 'base64url').toString();
  if (url === '' || linkCursor(url) !== cursor.replace(/=+$/, ''))
    throw validationError(`${name}: not a cursor of this list`);
  return url;
}

/** A row of `broadcasts.recipients` for `type`, with the fields the SDK types for it. */
export function recipientRow(
  type: BroadcastRecipientType,
  r: BroadcastRecipientState,
): Record<string, unknown> {
  const row: Record<string, unknown> = {
    id: recipientCursor(r.emailId),
    contact_id: r.contactId,
    email: r.email,
  };
  if (type === 'opened') row.count = r.opens;
  if (type === 'clicked') {
    row.count = r.clicks;
    row.clicked_links = r.links;
  }
  if (type === 'bounced') row.bounce_type = r.bounceKind ?? 'undetermined';
  return row;
}

export interface AnalyticsPage {
  limit: number;
  after?: string;
  before?: string;
}

export interface BroadcastAnalyticsPorts {
  broadcasts: { get(teamId: string, id: string): Promise<unknown> };
  analytics: {
    /** A page of the group's recipients in email id order, after/before an email id. */
    recipients(
      teamId: string,
      broadcastId: string,
      query: RecipientsQuery,
      page: { limit: number; afterId?: string; beforeId?: string },
    ): Promise<{ items: BroadcastRecipientState[]; hasMore: boolean }>;
    /** A page of the clicked links in URL order, after/before a URL. */
    links(
      teamId: string,
      broadcastId: string,
      page: { limit: number; afterUrl?: string; beforeUrl?: string },
    ): Promise<{ items: { url: string; clicks: number; uniqueClicks: number }[]; hasMore: boolean }>;
  };
}

async function ownBroadcast(ports: BroadcastAnalyticsPorts, teamId: string, id: string): Promise<void> {
  if (!(await ports.broadcasts.get(teamId, id))) throw notFound('Broadcast');
}

export async function listBroadcastRecipients(
  ports: BroadcastAnalyticsPorts,
  teamId: string,
  broadcastId: string,
  rawQuery: Record<string, unknown>,
  page: AnalyticsPage,
): Promise<{ object: 'list'; has_more: boolean; data: Record<string, unknown>[] }> {
  await ownBroadcast(ports, teamId, broadcastId);
  const query = parseRecipientsQuery(rawQuery);
  const res = await ports.analytics.recipients(teamId, broadcastId, query, {
    limit: page.limit,
    ...(page.after !== undefined && { afterId: recipientCursorEmailId(page.after, 'after') }),
    ...(page.before !== undefined && { beforeId: recipientCursorEmailId(page.before, 'before') }),
  });
  return { object: 'list', has_more: res.hasMore, data: res.items.map((r) => recipientRow(query.type, r)) };
}

export async function listBroadcastClickedLinks(
  ports: BroadcastAnalyticsPorts,
  teamId: string,
  broadcastId: string,
  page: AnalyticsPage,
): Promise<{ object: 'list'; has_more: boolean; data: Record<string, unknown>[] }> {
  await ownBroadcast(ports, teamId, broadcastId);
  const res = await ports.analytics.links(teamId, broadcastId, {
    limit: page.limit,
    ...(page.after !== undefined && { afterUrl: linkCursorUrl(page.after, 'after') }),
    ...(page.before !== undefined && { beforeUrl: linkCursorUrl(page.before, 'before') }),
  });
  return {
    object: 'list',
    has_more: res.hasMore,
    data: res.items.map((l) => ({
      id: linkCursor(l.url),
      url: l.url,
      clicks: l.clicks,
      unique_clicks: l.uniqueClicks,
    })),
  };
}
