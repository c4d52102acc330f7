/**
 * The whole official `resend` SDK against Petrel, method by method: every public method of the
 * client (sdkMethodPaths: the resources and sub-resources the SDK declares, read from the client
 * and its type declarations) has a row in CALLS, called with real ids created through the SDK
 * (team-resources.ts, plus a sent email with an attachment, a domain another team holds verified
 * for the claim) and answered with `error: null` and data in the shape the SDK's response type
 * declares: the row's own expectations, and every field the SDK's declarations say the answer
 * always has, read with the TypeScript compiler (sdkDeclaredFields), with a field typed as string
 * literals (`object`, a status) holding one of them. A method a new SDK version adds has no row and
 * fails the first test until one is written. Rows run in order: creates first, removes last, each
 * on a resource of its own.
 */
import { createHmac } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { Resend } from 'resend';
import { waitUntil } from '@petrel/testing';
import { email, fileDnsStack, otherTeam } from './helpers.js';
import { createTeamResources, type TeamResources } from './team-resources.js';
import { connectApp, registerApp } from './oauth-flow.js';
import { INBOUND_DOMAIN } from './scenarios/inbound.js';
import { SDK_VERSION, sdkDeclaredFields, sdkMethodPaths, type DeclaredAnswer } from './sdk-methods.js';

const { stack, dns } = fileDnsStack(() => ({ DOMAIN_MX_HOST: 'mx.petrel.e2e.test' }));
let r: Resend;
let res: TeamResources;
/** Ids the rows create and read (a row's resource, an email of a thread, …). */
const ctx: Record<string, string> = {};
const id = (name: string): string => res.ids[name]![0]!;

const CLAIMED = 'claimable.sdk.e2e.test';

beforeAll(async () => {
  r = stack.resend;
  res = await createTeamResources(stack, 'sdk');
  // a sent email with an attachment (emails.attachments.*)
  const sent = await r.emails.send({
    ...mail(2),
    attachments: [{ filename: 'a.txt', content: Buffer.from('hello').toString('base64') }],
  });
  expect(sent.error).toBeNull();
  ctx.sent = sent.data!.id;
  await stack.settled([ctx.sent]);
  // a domain another team holds verified: what domains.claims.create claims
  const { resend: holder } = await otherTeam(stack, 'holder');
  const held = (await holder.domains.create({ name: CLAIMED })).data!;
  for (const rec of held.records as { name: string; type: string; value: string; priority?: number }[])
    dns.add({
      name: rec.name,
      type: rec.type as 'TXT' | 'MX',
      value: rec.value,
      ...(rec.priority !== undefined && { priority: rec.priority }),
    });
  expect((await holder.domains.verify(held.id)).error).toBeNull();
  await waitUntil(async () => (await holder.domains.get(held.id)).data?.status === 'verified', {
    message: `${CLAIMED} verified for its holder`,
  });
  // a second OAuth grant of the team, for oauthGrants.revoke (the first stays listed)
  ctx.grant = (await connectApp(stack, await registerApp(stack), stack.key, 'full_access')).grantId;
  // the received email's thread: its first email (replies and forwards address it)
  ctx.threadEmail = (
    await r.inboxes.threads.emails.list({ inboxId: id('inboxes'), threadId: id('threads') })
  ).data!.data[0]!.id;
}, 120_000);

type Answer = { data: unknown; error: unknown };
interface Row {
  call: () => PromiseLike<Answer>;
  /** What `data` has: the fields the SDK's response type declares (toMatchObject). */
  shape: Record<string, unknown>;
  /** Keep from the answer's data for later rows: ctx[key] = data[field]. */
  keep?: [key: string, field: string];
}

const LIST = { object: 'list', data: expect.any(Array) };
const str = expect.any(String);
const obj = (object: string, more: Record<string, unknown> = {}) => ({ object, id: str, ...more });
const inbox = () => ({ inboxId: id('inboxes') });
const thread = () => ({ ...inbox(), threadId: id('threads') });
const mail = (i: number) => email(i) as { from: string; to: string[]; subject: string; html: string };

/** Every public method of the SDK, in the order they run: creates and reads first, removes last. */
const CALLS: Record<string, Row> = {
  // emails
  'emails.send': { call: () => r.emails.send(mail(3)), shape: { id: str } },
  'emails.create': {
    call: () => r.emails.create({ ...mail(4), scheduledAt: 'in 1 day' }),
    shape: { id: str },
    keep: ['scheduled', 'id'],
  },
  'emails.get': { call: () => r.emails.get(ctx.sent!), shape: obj('email') },
  'emails.list': {
    call: () => r.emails.list({ limit: 5 }),
    shape: { ...LIST, has_more: expect.any(Boolean) },
  },
  'emails.update': {
    call: () => r.emails.update({ id: ctx.scheduled!, scheduledAt: 'in 2 days' }),
    shape: obj('email'),
  },
  'emails.share': {
    call: () => r.emails.share(ctx.sent!, { expiresIn: '1 hour' }),
    shape: obj('email', { url: str }),
  },
  'emails.metrics': { call: () => r.emails.metrics(), shape: { object: 'metrics' } },
  'emails.attachments.list': {
    call: () => r.emails.attachments.list({ emailId: ctx.sent! }),
    shape: LIST,
    keep: ['sentAttachment', 'data.0.id'],
  },
  'emails.attachments.get': {
    call: () => r.emails.attachments.get({ emailId: ctx.sent!, id: ctx.sentAttachment! }),
    shape: obj('attachment', { filename: 'a.txt' }),
  },
  'emails.receiving.list': { call: () => r.emails.receiving.list(), shape: LIST },
  'emails.receiving.get': { call: () => r.emails.receiving.get(id('receiving')), shape: obj('email') },
  'emails.receiving.forward': {
    call: () =>
      r.emails.receiving.forward({
        emailId: id('receiving'),
        to: 'fwd@example.test',
        from: 'Acme <fwd@acme.test>',
      }),
    shape: { id: str },
  },
  'emails.receiving.attachments.list': {
    call: () => r.emails.receiving.attachments.list({ emailId: id('receiving') }),
    shape: LIST,
  },
  'emails.receiving.attachments.get': {
    call: () => r.emails.receiving.attachments.get({ emailId: id('receiving'), id: id('attachments') }),
    shape: obj('attachment'),
  },
  'batch.send': { call: () => r.batch.send([mail(5), mail(6)]), shape: { data: expect.any(Array) } },
  'batch.create': { call: () => r.batch.create([mail(7)]), shape: { data: expect.any(Array) } },
  // domains and claims
  'domains.create': {
    call: () => r.domains.create({ name: 'created.sdk.e2e.test' }),
    shape: { id: str, name: 'created.sdk.e2e.test', status: str, records: expect.any(Array) },
    keep: ['domain', 'id'],
  },
  'domains.list': { call: () => r.domains.list(), shape: LIST },
  'domains.get': { call: () => r.domains.get(id('domains')), shape: obj('domain') },
  'domains.update': {
    call: () => r.domains.update({ id: id('domains'), openTracking: true }),
    shape: obj('domain'),
  },
  'domains.verify': { call: () => r.domains.verify(id('domains')), shape: obj('domain') },
  'domains.claims.create': {
    call: () => r.domains.claims.create({ name: CLAIMED }),
    shape: obj('domain_claim', { name: CLAIMED, domain_id: str }),
    keep: ['claimDomain', 'domain_id'],
  },
  'domains.claims.get': { call: () => r.domains.claims.get(ctx.claimDomain!), shape: obj('domain_claim') },
  'domains.claims.verify': {
    call: () => r.domains.claims.verify(ctx.claimDomain!),
    shape: obj('domain_claim'),
  },
  // api keys
  'apiKeys.create': {
    call: () => r.apiKeys.create({ name: 'sdk-surface' }),
    shape: { id: str, token: str },
    keep: ['apiKey', 'id'],
  },
  'apiKeys.list': { call: () => r.apiKeys.list(), shape: LIST },
  'apiKeys.update': { call: () => r.apiKeys.update(ctx.apiKey!, { name: 'renamed' }), shape: { id: str } },
  // segments and the legacy audiences (the same resource)
  'segments.create': {
    call: () => r.segments.create({ name: 'sdk-seg' }),
    shape: obj('segment'),
    keep: ['segment', 'id'],
  },
  'segments.list': { call: () => r.segments.list(), shape: LIST },
  'segments.get': { call: () => r.segments.get(id('segments')), shape: obj('segment') },
  'segments.update': {
    call: () => r.segments.update(ctx.segment!, { name: 'sdk-seg-2' }),
    shape: obj('segment'),
  },
  'audiences.create': {
    call: () => r.audiences.create({ name: 'sdk-aud' }),
    shape: obj('segment'),
    keep: ['audience', 'id'],
  },
  'audiences.list': { call: () => r.audiences.list(), shape: LIST },
  'audiences.get': { call: () => r.audiences.get(id('segments')), shape: obj('segment') },
  'audiences.update': {
    call: () => r.audiences.update(ctx.audience!, { name: 'sdk-aud-2' }),
    shape: obj('segment'),
  },
  // topics, contact properties, contacts
  'topics.create': {
    call: () => r.topics.create({ name: 'sdk-topic', defaultSubscription: 'opt_out' }),
    shape: { id: str },
    keep: ['topic', 'id'],
  },
  'topics.list': { call: () => r.topics.list(), shape: { data: expect.any(Array) } },
  'topics.get': {
    call: () => r.topics.get(id('topics')),
    shape: { id: str, name: str, default_subscription: str },
  },
  'topics.update': {
    call: () => r.topics.update({ id: ctx.topic!, name: 'sdk-topic-2' }),
    shape: { id: str },
  },
  'contactProperties.create': {
    call: () => r.contactProperties.create({ key: 'sdk_surface', type: 'number', fallbackValue: 1 }),
    shape: obj('contact_property'),
    keep: ['property', 'id'],
  },
  'contactProperties.list': { call: () => r.contactProperties.list(), shape: LIST },
  'contactProperties.get': {
    call: () => r.contactProperties.get(ctx.property!),
    shape: obj('contact_property'),
  },
  'contactProperties.update': {
    call: () => r.contactProperties.update({ id: ctx.property!, fallbackValue: 2 }),
    shape: obj('contact_property'),
  },
  'contacts.create': {
    call: () => r.contacts.create({ email: 'sdk-new@example.test', firstName: 'New' }),
    shape: obj('contact'),
    keep: ['contact', 'id'],
  },
  'contacts.list': { call: () => r.contacts.list(), shape: LIST },
  'contacts.get': { call: () => r.contacts.get(id('contacts')), shape: obj('contact') },
  'contacts.update': {
    call: () => r.contacts.update({ id: ctx.contact!, lastName: 'Contact' }),
    shape: obj('contact'),
  },
  'contacts.segments.add': {
    call: () => r.contacts.segments.add({ contactId: ctx.contact!, segmentId: id('segments') }),
    shape: { id: str },
  },
  'contacts.segments.list': {
    call: () => r.contacts.segments.list({ contactId: ctx.contact! }),
    shape: LIST,
  },
  'contacts.topics.update': {
    call: () =>
      r.contacts.topics.update({ id: ctx.contact!, topics: [{ id: id('topics'), subscription: 'opt_out' }] }),
    shape: { id: str },
  },
  'contacts.topics.list': { call: () => r.contacts.topics.list({ id: ctx.contact! }), shape: LIST },
  'contacts.imports.create': {
    call: () =>
      r.contacts.imports.create({
        file: new Blob(['email\nsdk-import@example.test\n'], { type: 'text/csv' }),
      }),
    shape: obj('contact_import'),
    keep: ['import', 'id'],
  },
  'contacts.imports.list': { call: () => r.contacts.imports.list(), shape: LIST },
  'contacts.imports.get': { call: () => r.contacts.imports.get(ctx.import!), shape: obj('contact_import') },
  // suppressions
  'suppressions.add': {
    call: () => r.suppressions.add({ email: 'sdk-suppressed@example.test' }),
    shape: obj('suppression'),
    keep: ['suppression', 'id'],
  },
  'suppressions.list': { call: () => r.suppressions.list(), shape: LIST },
  'suppressions.get': { call: () => r.suppressions.get(id('suppressions')), shape: obj('suppression') },
  'suppressions.batch.add': {
    call: () => r.suppressions.batch.add({ emails: ['sdk-b1@example.test', 'sdk-b2@example.test'] }),
    shape: { data: expect.anything() },
  },
  // templates
  'templates.create': {
    call: () => r.templates.create({ name: 'sdk-tpl', subject: 'Hi', html: '<p>hi</p>' }),
    shape: obj('template'),
    keep: ['template', 'id'],
  },
  'templates.list': { call: () => r.templates.list(), shape: LIST },
  'templates.get': { call: () => r.templates.get(id('templates')), shape: obj('template') },
  'templates.update': {
    call: () => r.templates.update(ctx.template!, { subject: 'Hello' }),
    shape: obj('template'),
  },
  'templates.publish': { call: () => r.templates.publish(ctx.template!), shape: obj('template') },
  'templates.duplicate': {
    call: () => r.templates.duplicate(ctx.template!),
    shape: obj('template'),
    keep: ['templateCopy', 'id'],
  },
  // broadcasts
  'broadcasts.create': {
    call: () =>
      r.broadcasts.create({
        segmentId: id('segments'),
        from: 'Acme <news@acme.test>',
        subject: 'News',
        html: '<p>news</p>',
      }),
    shape: { id: str },
    keep: ['broadcast', 'id'],
  },
  'broadcasts.list': { call: () => r.broadcasts.list(), shape: LIST },
  'broadcasts.get': { call: () => r.broadcasts.get(ctx.broadcast!), shape: obj('broadcast') },
  'broadcasts.update': {
    call: () => r.broadcasts.update(ctx.broadcast!, { subject: 'News 2' }),
    shape: { id: str },
  },
  'broadcasts.duplicate': {
    call: () => r.broadcasts.duplicate(ctx.broadcast!),
    shape: { id: str },
    keep: ['broadcastCopy', 'id'],
  },
  'broadcasts.send': {
    call: () => r.broadcasts.send(ctx.broadcast!, { scheduledAt: 'in 1 day' }),
    shape: { id: str },
  },
  'broadcasts.recipients': {
    call: () => r.broadcasts.recipients(ctx.broadcast!, { type: 'sent' }),
    shape: LIST,
  },
  'broadcasts.clickedLinks': { call: () => r.broadcasts.clickedLinks(ctx.broadcast!), shape: LIST },
  // webhooks and their event logs
  'webhooks.create': {
    call: () => r.webhooks.create({ endpoint: 'http://127.0.0.1:9/sdk', events: ['email.sent'] }),
    shape: obj('webhook', { signing_secret: str }),
    keep: ['webhook', 'id'],
  },
  'webhooks.list': { call: () => r.webhooks.list(), shape: LIST },
  'webhooks.get': { call: () => r.webhooks.get(id('webhooks')), shape: obj('webhook') },
  'webhooks.update': {
    call: () => r.webhooks.update(ctx.webhook!, { status: 'disabled' }),
    shape: obj('webhook'),
  },
  'webhooks.rotateSigningSecret': {
    call: () => r.webhooks.rotateSigningSecret(ctx.webhook!),
    shape: obj('webhook'),
  },
  'webhooks.events.list': { call: () => r.webhooks.events.list({ webhookId: id('webhooks') }), shape: LIST },
  'webhooks.events.get': {
    call: () => r.webhooks.events.get({ webhookId: id('webhooks'), eventId: id('events') }),
    shape: obj('webhook_event'),
  },
  'webhooks.events.replay': {
    call: () => r.webhooks.events.replay({ webhookId: id('webhooks'), eventId: id('events') }),
    shape: obj('webhook_event'),
  },
  'webhooks.events.attempts.list': {
    call: () => r.webhooks.events.attempts.list({ webhookId: id('webhooks'), eventId: id('events') }),
    shape: LIST,
  },
  // events and automations
  'events.create': {
    call: () => r.events.create({ name: 'sdk.surface' }),
    shape: obj('event'),
    keep: ['event', 'id'],
  },
  'events.list': { call: () => r.events.list(), shape: LIST },
  'events.get': { call: () => r.events.get(ctx.event!), shape: obj('event') },
  'events.update': {
    call: () => r.events.update(ctx.event!, { schema: { plan: 'string' } }),
    shape: obj('event'),
  },
  'events.send': {
    call: () =>
      r.events.send({ event: 'sdk.surface', email: 'sdk-event@example.test', payload: { plan: 'pro' } }),
    shape: { object: 'event' },
  },
  'automations.create': {
    call: () =>
      r.automations.create({
        name: 'sdk-automation',
        status: 'disabled',
        steps: [
          { key: 'start', type: 'trigger', config: { eventName: 'sdk.surface' } },
          { key: 'later', type: 'delay', config: { duration: '1 hour' } },
        ],
        connections: [{ from: 'start', to: 'later', type: 'default' }],
      }),
    shape: obj('automation'),
    keep: ['automation', 'id'],
  },
  'automations.list': { call: () => r.automations.list(), shape: LIST },
  'automations.get': { call: () => r.automations.get(id('automations')), shape: obj('automation') },
  'automations.update': {
    call: () => r.automations.update(ctx.automation!, { name: 'sdk-automation-2' }),
    shape: obj('automation'),
  },
  'automations.duplicate': {
    call: () => r.automations.duplicate(ctx.automation!),
    shape: obj('automation'),
    keep: ['automationCopy', 'id'],
  },
  'automations.runs.list': {
    call: () => r.automations.runs.list({ automationId: id('automations') }),
    shape: LIST,
  },
  'automations.runs.get': {
    call: () => r.automations.runs.get({ automationId: id('automations'), runId: id('runs') }),
    shape: obj('automation_run'),
  },
  'automations.stop': { call: () => r.automations.stop(id('automations')), shape: obj('automation') },
  // inboxes
  'inboxes.create': {
    call: () => r.inboxes.create({ emailAddress: `sdk-new@${INBOUND_DOMAIN}` }),
    shape: obj('inbox'),
    keep: ['inbox', 'id'],
  },
  'inboxes.list': { call: () => r.inboxes.list(), shape: LIST },
  'inboxes.get': { call: () => r.inboxes.get(id('inboxes')), shape: obj('inbox') },
  'inboxes.update': { call: () => r.inboxes.update(ctx.inbox!, { name: 'SDK' }), shape: obj('inbox') },
  'inboxes.agent.get': { call: () => r.inboxes.agent.get(inbox()), shape: { object: 'inbox_agent' } },
  'inboxes.agent.update': {
    call: () => r.inboxes.agent.update({ ...inbox(), instructions: 'Be brief.' }),
    shape: { object: 'inbox_agent' },
  },
  'inboxes.labels.create': {
    call: () => r.inboxes.labels.create({ ...inbox(), name: 'sdk-label' }),
    shape: obj('inbox_label'),
    keep: ['label', 'id'],
  },
  'inboxes.labels.list': { call: () => r.inboxes.labels.list(inbox()), shape: LIST },
  'inboxes.labels.update': {
    call: () => r.inboxes.labels.update({ ...inbox(), labelId: ctx.label!, name: 'sdk-label-2' }),
    shape: obj('inbox_label'),
  },
  'inboxes.threads.list': { call: () => r.inboxes.threads.list(inbox()), shape: LIST },
  'inboxes.threads.search': {
    call: () => r.inboxes.threads.search({ ...inbox(), query: 'received' }),
    shape: LIST,
  },
  'inboxes.threads.get': { call: () => r.inboxes.threads.get(thread()), shape: obj('inbox_thread') },
  'inboxes.threads.update': {
    call: () => r.inboxes.threads.update({ ...thread(), read: true }),
    shape: obj('inbox_thread'),
  },
  'inboxes.threads.labels.add': {
    call: () => r.inboxes.threads.labels.add({ ...thread(), labels: [id('labels')] }),
    shape: { object: 'list' },
  },
  'inboxes.threads.labels.set': {
    call: () => r.inboxes.threads.labels.set({ ...thread(), labels: [id('labels'), ctx.label!] }),
    shape: { object: 'list' },
  },
  'inboxes.threads.emails.list': { call: () => r.inboxes.threads.emails.list(thread()), shape: LIST },
  'inboxes.threads.emails.get': {
    call: () => r.inboxes.threads.emails.get({ ...thread(), emailId: ctx.threadEmail! }),
    shape: { id: str, direction: 'inbound', from: str, to: expect.any(Array) },
  },
  'inboxes.threads.emails.reply': {
    call: () => r.inboxes.threads.emails.reply({ ...thread(), emailId: ctx.threadEmail!, text: 'Thanks!' }),
    shape: { id: str },
  },
  'inboxes.threads.emails.forward': {
    call: () =>
      r.inboxes.threads.emails.forward({ ...thread(), emailId: ctx.threadEmail!, to: 'fwd@example.test' }),
    shape: { id: str },
  },
  'inboxes.drafts.create': {
    call: () =>
      r.inboxes.drafts.create({ ...inbox(), to: 'draft@example.test', subject: 'Draft', text: 'hi' }),
    shape: obj('inbox_draft'),
    keep: ['draft', 'id'],
  },
  'inboxes.drafts.list': { call: () => r.inboxes.drafts.list(inbox()), shape: LIST },
  'inboxes.drafts.get': {
    call: () => r.inboxes.drafts.get({ ...inbox(), draftId: ctx.draft! }),
    shape: obj('inbox_draft'),
  },
  'inboxes.drafts.update': {
    call: () => r.inboxes.drafts.update({ ...inbox(), draftId: ctx.draft!, text: 'hello' }),
    shape: obj('inbox_draft'),
  },
  'inboxes.drafts.send': {
    call: () => r.inboxes.drafts.send({ ...inbox(), draftId: ctx.draft! }),
    shape: { id: str },
  },
  // logs, usage, OAuth grants
  'logs.list': { call: () => r.logs.list(), shape: LIST, keep: ['log', 'data.0.id'] },
  'logs.get': { call: () => r.logs.get(ctx.log!), shape: obj('log') },
  'usage.get': { call: () => r.usage.get(), shape: { object: 'usage' } },
  'oauthGrants.list': { call: () => r.oauthGrants.list(), shape: LIST },
  // webhooks.verify is local (no request): a signed payload of the row's own making
  'webhooks.verify': {
    call: () => Promise.resolve({ data: verifySigned(), error: null }),
    shape: { type: 'email.sent' },
  },

  // destructive rows last, each on a resource a row above created
  'emails.cancel': { call: () => r.emails.cancel(ctx.scheduled!), shape: obj('email') },
  'broadcasts.cancel': { call: () => r.broadcasts.cancel(ctx.broadcast!), shape: { id: str } },
  'broadcasts.remove': {
    call: () => r.broadcasts.remove(ctx.broadcastCopy!),
    shape: { id: str, deleted: true },
  },
  'oauthGrants.revoke': { call: () => r.oauthGrants.revoke(ctx.grant!), shape: { id: str } },
  'inboxes.threads.labels.remove': {
    call: () => r.inboxes.threads.labels.remove({ ...thread(), labelId: ctx.label! }),
    shape: { object: 'list' },
  },
  'inboxes.labels.remove': {
    call: () => r.inboxes.labels.remove({ ...inbox(), labelId: ctx.label! }),
    shape: { deleted: true },
  },
  'inboxes.drafts.remove': {
    call: () => r.inboxes.drafts.remove({ ...inbox(), draftId: id('drafts') }),
    shape: { deleted: true },
  },
  'inboxes.threads.remove': {
    call: () => r.inboxes.threads.remove(thread()),
    shape: { object: 'inbox_thread' },
  },
  'inboxes.remove': { call: () => r.inboxes.remove(ctx.inbox!), shape: { deleted: true } },
  'automations.remove': { call: () => r.automations.remove(ctx.automationCopy!), shape: { deleted: true } },
  'events.remove': { call: () => r.events.remove(ctx.event!), shape: { deleted: true } },
  'webhooks.remove': { call: () => r.webhooks.remove(ctx.webhook!), shape: { deleted: true } },
  'templates.remove': { call: () => r.templates.remove(ctx.templateCopy!), shape: { deleted: true } },
  'suppressions.batch.remove': {
    call: () => r.suppressions.batch.remove({ emails: ['sdk-b1@example.test', 'sdk-b2@example.test'] }),
    shape: { data: expect.anything() },
  },
  'suppressions.remove': { call: () => r.suppressions.remove(ctx.suppression!), shape: { deleted: true } },
  'contacts.segments.remove': {
    call: () => r.contacts.segments.remove({ contactId: ctx.contact!, segmentId: id('segments') }),
    shape: { deleted: true },
  },
  'contacts.remove': { call: () => r.contacts.remove(ctx.contact!), shape: { deleted: true } },
  'contactProperties.remove': {
    call: () => r.contactProperties.remove(ctx.property!),
    shape: { deleted: true },
  },
  'topics.remove': { call: () => r.topics.remove(ctx.topic!), shape: { deleted: true } },
  'audiences.remove': { call: () => r.audiences.remove(ctx.audience!), shape: { deleted: true } },
  'segments.remove': { call: () => r.segments.remove(ctx.segment!), shape: { deleted: true } },
  'apiKeys.remove': { call: () => r.apiKeys.remove(ctx.apiKey!), shape: {} },
  'domains.remove': { call: () => r.domains.remove(ctx.domain!), shape: { deleted: true } },
};

/** A delivery payload signed as Standard Webhooks do, read back with the SDK's verify. */
function verifySigned(): unknown {
  const secret = `whsec_${Buffer.from('sdk-surface-secret').toString('base64')}`;
  const payload = JSON.stringify({ type: 'email.sent', created_at: new Date().toISOString(), data: {} });
  const msgId = 'msg_sdk';
  const timestamp = String(Math.floor(Date.now() / 1000));
  const signature = createHmac('sha256', Buffer.from(secret.slice(6), 'base64'))
    .update(`${msgId}.${timestamp}.${payload}`)
    .digest('base64');
  return r.webhooks.verify({
    payload,
    headers: { id: msgId, timestamp, signature: `v1,${signature}` },
    webhookSecret: secret,
  });
}

/** `data.0.id` of an answer. */
const pick = (data: unknown, path: string): string =>
  path.split('.').reduce<unknown>((o, k) => (o as Record<string, unknown>)[k], data) as string;

describe('the official resend SDK, every method', () => {
  const methods = sdkMethodPaths();
  /** Per method, the fields its `data` always has by the SDK's declarations. */
  let declared: Map<string, DeclaredAnswer>;
  beforeAll(() => {
    declared = sdkDeclaredFields(methods);
  }, 60_000);

  it('the table has a row for exactly the SDK’s public methods', () => {
    console.log(`resend ${SDK_VERSION}: ${methods.length} public methods`);
    expect(methods).toEqual(
      expect.arrayContaining(['emails.send', 'domains.claims.verify', 'inboxes.threads.emails.reply']),
    );
    // private helpers of the SDK's classes are not methods of its surface
    expect(methods).not.toContain('contacts.imports.buildColumnMap');
    expect(Object.keys(CALLS).sort()).toEqual(methods);
    // the declarations were read: a get names its fields, a list its page
    expect(declared.get('emails.get')?.fields).toEqual(
      expect.arrayContaining(['object', 'id', 'last_event']),
    );
    expect(declared.get('emails.get')?.literals.get('object')).toEqual(['email']);
    expect(declared.get('logs.list')?.fields).toEqual(expect.arrayContaining(['object', 'data', 'has_more']));
  });

  for (const [path, row] of Object.entries(CALLS))
    it(path, async () => {
      const { data, error } = await row.call();
      expect(error, path).toBeNull();
      expect(data, path).toMatchObject(row.shape);
      const want = declared.get(path)!;
      const answer = data as Record<string, unknown>;
      const missing = want.fields.filter((field) => !(field in answer));
      expect(missing, `${path}: fields the SDK declares that the answer lacks`).toEqual([]);
      for (const [field, values] of want.literals)
        expect(values, `${path}: ${field} is one of the SDK's values`).toContain(answer[field]);
      if (row.keep) ctx[row.keep[0]] = pick(data, row.keep[1]);
    });
});
