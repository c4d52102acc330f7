/**
 * One of every resource a team can have, created through the API with the official SDK, and the
 * path of any route of the router filled in with them: the route-enumerating tests (fuzz, tenant
 * isolation) cover a new route as soon as its resource is listed here, and fail loudly until then.
 */
import { expect } from 'vitest';
import { waitUntil } from '@petrel/testing';
import { email, ok, type Stack } from './helpers.js';
import { INBOUND_DOMAIN, mta } from './scenarios/inbound.js';
import { connectApp, registerApp } from './oauth-flow.js';

export interface TeamResources {
  /** By the fixed segment before a `:param` (`contacts`, `segments`…): the ids that address it. */
  ids: Record<string, string[]>;
}

/** Path prefixes whose routes take no API key (the credential is in the URL). */
export const LINK_ROUTE_PREFIXES = [
  '/unsubscribe/',
  '/t/o/',
  '/t/c/',
  '/emails/receiving/downloads/',
  // a shared email's page and a sent email's attachment download (email-share.routes.ts)
  '/shared/',
  '/emails/downloads/',
  // OAuth: the authorization endpoint (a browser), the token and revocation endpoints (an app's
  // own credentials in the form) and the server's metadata (oauth.routes.ts)
  '/oauth/authorize',
  '/oauth/token',
  '/oauth/revoke',
  '/.well-known/',
];
export const isLinkRoute = (path: string): boolean => LINK_ROUTE_PREFIXES.some((p) => path.startsWith(p));

/** The dashboard's own routes: its files and its session, for a browser rather than an API key. */
export const isDashboardRoute = (path: string): boolean =>
  path === '/dashboard' || path.startsWith('/dashboard/');

/**
 * The wire body of an automation using every branching step: on `event`, wait for `<event>.done`
 * (or time out), check the plan, then wait two hours.
 */
export function automationBody(name: string, status: 'enabled' | 'disabled', event: string): object {
  return {
    name,
    status,
    steps: [
      { key: 'start', type: 'trigger', config: { event_name: event } },
      { key: 'wait', type: 'wait_for_event', config: { event_name: `${event}.done`, timeout: '1 day' } },
      {
        key: 'check',
        type: 'condition',
        config: { type: 'rule', field: 'event.plan', operator: 'eq', value: 'pro' },
      },
      { key: 'later', type: 'delay', config: { duration: 'PT2H' } },
    ],
    connections: [
      { from: 'start', to: 'wait', type: 'default' },
      { from: 'wait', to: 'check', type: 'event_received' },
      { from: 'wait', to: 'later', type: 'timeout' },
      { from: 'check', to: 'later', type: 'condition_met' },
      { from: 'check', to: 'later', type: 'condition_not_met' },
    ],
  };
}

/** Creates one of each resource for the stack's team; `tag` keeps names and addresses apart. */
export async function createTeamResources(stack: Stack, tag: string): Promise<TeamResources> {
  const r = stack.resend;
  // a webhook before the contact, so the contact's event is in its log (nothing listens on port 9)
  const webhook = ok(
    await r.webhooks.create({ endpoint: 'http://127.0.0.1:9/hook', events: ['contact.created'] }),
    'webhook',
  );
  const scheduled = ok(await r.emails.send({ ...email(1), scheduledAt: 'in 2 hours' } as never), 'email');
  const alias = `${tag}-alias`;
  const template = ok(
    await r.templates.create({
      name: `${tag}-template`,
      alias,
      subject: 'Hi',
      html: '<p>{{{NAME}}}</p>',
      variables: [{ key: 'NAME', type: 'string', fallbackValue: 'x' }],
    }),
    'template',
  );
  ok(await r.templates.publish(template.id), 'publish');
  const key = ok(await r.apiKeys.create({ name: `${tag}-extra` }), 'api key');
  const segment = ok(await r.segments.create({ name: `${tag}-segment` }), 'segment');
  const topic = ok(await r.topics.create({ name: `${tag}-topic`, defaultSubscription: 'opt_in' }), 'topic');
  const property = ok(
    await r.contactProperties.create({ key: `${tag.replace(/\W/g, '_')}_plan`, type: 'string' }),
    'property',
  );
  const contactEmail = `${tag}-contact@example.test`;
  const contact = ok(
    await r.contacts.create({
      email: contactEmail,
      segments: [{ id: segment.id }],
      topics: [{ id: topic.id, subscription: 'opt_in' }],
    }),
    'contact',
  );
  const suppressed = `${tag}-suppressed@example.test`;
  const suppression = ok(await r.suppressions.add({ email: suppressed }), 'suppression');
  const form = new FormData();
  form.set('file', new Blob([`email\n${tag}-imported@example.test\n`], { type: 'text/csv' }), 'c.csv');
  const imported = await stack.http('/contacts/imports', { method: 'POST', body: form });
  expect(imported.status, JSON.stringify(imported.body)).toBe(201);
  const ids: Record<string, string[]> = {
    emails: [scheduled.id],
    templates: [template.id, alias],
    'api-keys': [key.id],
    segments: [segment.id],
    audiences: [segment.id],
    topics: [topic.id],
    'contact-properties': [property.id],
    contacts: [contact.id, contactEmail],
    suppressions: [suppression.id, encodeURIComponent(suppressed)],
    imports: [(imported.body as { id: string }).id],
    webhooks: [webhook.id],
    events: [await webhookEventId(stack, webhook.id)],
  };
  const eventName = `${tag}.signed_up`;
  const event = ok(await r.events.create({ name: eventName, schema: { plan: 'string' } }), 'event');
  ids['/events'] = [event.id, encodeURIComponent(eventName)];
  // an enabled automation on that event, and one run of it (the event sent for the contact)
  const automation = ok(
    await r.automations.create({
      name: `${tag}-automation`,
      status: 'enabled',
      steps: [
        { key: 'start', type: 'trigger', config: { eventName } },
        { key: 'later', type: 'delay', config: { duration: '1 day' } },
      ],
      connections: [{ from: 'start', to: 'later', type: 'default' }],
    }),
    'automation',
  );
  ok(await r.events.send({ event: eventName, contactId: contact.id, payload: { plan: 'pro' } }), 'event');
  ids.automations = [automation.id];
  ids.runs = [
    await waitUntil(
      async () => (await r.automations.runs.list({ automationId: automation.id })).data?.data[0]?.id,
      {
        message: `a run of automation ${automation.id}`,
      },
    ),
  ];
  const domain = ok(await r.domains.create({ name: `${tag.replace(/\W/g, '-')}.example.test` }), 'domain');
  ids.domains = [domain.id];
  const broadcasts = await stack.http('/broadcasts', {
    method: 'POST',
    body: JSON.stringify({
      segment_id: segment.id,
      from: 'Acme <news@acme.test>',
      subject: 'Hi',
      html: '<p>hi</p>',
    }),
  });
  if (broadcasts.status === 201) ids.broadcasts = [(broadcasts.body as { id: string }).id];
  // an inbox at the address the received email below goes to (so it lands in a thread), a label
  const inboxAddress = `${tag}@${INBOUND_DOMAIN}`;
  const inbox = ok(await r.inboxes.create({ emailAddress: inboxAddress }), 'inbox');
  const label = ok(await r.inboxes.labels.create({ inboxId: inbox.id, name: `${tag}-label` }), 'inbox label');
  // a received email (SMTP_INBOUND_PORT, the default INBOUND_DOMAINS of startStack) and its attachment
  const received = await receivedEmail(stack, tag);
  ids.inboxes = [inbox.id, encodeURIComponent(inboxAddress)];
  ids.labels = [label.id];
  ids.threads = [
    await waitUntil(async () => (await r.inboxes.threads.list({ inboxId: inbox.id })).data?.data[0]?.id, {
      message: 'the received email in a thread of its inbox',
    }),
  ];
  // a draft of the inbox (replies, forwards and draft sends address the thread's email below)
  ids.drafts = [
    ok(
      await r.inboxes.drafts.create({
        inboxId: inbox.id,
        to: `${tag}@example.test`,
        subject: 'Draft',
        text: 'hi',
      }),
      'inbox draft',
    ).id,
  ];
  ids.receiving = [received.id];
  ids.attachments = [received.attachmentId];
  ids.downloads = [received.token];
  // an app connected through OAuth: its grant (the team of the stack's key)
  ids.grants = [(await connectApp(stack, await registerApp(stack), stack.key, 'sending_access')).grantId];
  // the shared page of the scheduled email (its token is the credential)
  ids.shared = [
    ok(await r.emails.share(scheduled.id), 'share')
      .url.split('/')
      .pop()!,
  ];
  // a request in the team's log (written just after its response)
  ids.logs = [
    await waitUntil(async () => (await r.logs.list()).data?.data[0]?.id, {
      message: 'a request in the team log',
    }),
  ];
  return { ids };
}

/** An email received for the stack's default team, with one attachment, and its raw download token. */
export async function receivedEmail(
  stack: Stack,
  tag: string,
): Promise<{ id: string; attachmentId: string; token: string }> {
  const subject = `${tag} received`;
  await mta(stack.smtpPorts.inbound!).sendMail({
    from: 'sender@example.test',
    to: `${tag}@${INBOUND_DOMAIN}`,
    subject,
    text: 'hello',
    attachments: [{ filename: 'a.txt', content: 'a' }],
  });
  const listed = await waitUntil(
    async () => (await stack.resend.emails.receiving.list()).data?.data.find((e) => e.subject === subject),
    { message: `the received email ${subject}` },
  );
  const got = await stack.resend.emails.receiving.get(listed.id);
  return {
    id: listed.id,
    attachmentId: listed.attachments[0]!.id,
    token: got.data!.raw!.download_url.split('/').pop()!,
  };
}

/** The id of the first event in a webhook's log, once the dispatcher has logged one. */
async function webhookEventId(stack: Stack, webhookId: string): Promise<string> {
  return waitUntil(async () => (await stack.resend.webhooks.events.list({ webhookId })).data?.data[0]?.id, {
    message: `an event in the log of webhook ${webhookId}`,
  });
}

/**
 * Every way to fill `path` with `res`: each `:param` by the ids of the resource named by the
 * segment before it (`/contacts/:c/segments/:segmentId` → a contact, then a segment). The first
 * id of each is used, and one variant per further identifier (alias, email) of the first param.
 */
export function fillPath(path: string, res: TeamResources): string[] {
  const segments = path.split('/');
  const params = segments.flatMap((s, i) => (s.startsWith(':') ? [i] : []));
  if (params.length === 0) return [path];
  const idsAt = (i: number): string[] => {
    const owner = segments[i - 1]!;
    // a top-level resource may share its segment with a nested one (`/events/:idOrName` and
    // `/webhooks/:id/events/:eventId`): `/events` names the top-level one
    const ids = (i === 2 ? res.ids[`/${owner}`] : undefined) ?? res.ids[owner];
    if (!ids)
      throw new Error(`no id known for the route ${path} (after /${owner}): add it to team-resources.ts`);
    return ids;
  };
  const first = idsAt(params[0]!);
  return first.map((firstId) =>
    segments.map((s, i) => (i === params[0] ? firstId : s.startsWith(':') ? idsAt(i)[0]! : s)).join('/'),
  );
}
