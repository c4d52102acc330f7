/**
 * Templates e2e: CRUD, publishing and versions, typed variables, and sending from a
 * template — driven with the official `resend` SDK (camelCase options: `fallbackValue`,
 * `replyTo`, `scheduledAt`) against the whole stack, checked at a real SMTP sink.
 */
import { describe, expect, it } from 'vitest';
import type { CreateTemplateOptions } from 'resend';
import { RESERVED_VARIABLES } from '@petrel/contracts';
import { waitUntil, type SinkMessage } from '@petrel/testing';
import { createdId, fileStack, ok, sendPlain, uniqueAddress } from './helpers.js';

const stack = fileStack();

let seq = 0;
const uniqueAlias = (tag: string): string => `${tag}-${++seq}`;

/** Messages the sink received for `address`. */
const receivedBy = (address: string): SinkMessage[] =>
  stack.sink.messages.filter((m) => m.envelope.to.includes(address));

async function waitForMessage(address: string, timeoutMs = 15_000): Promise<SinkMessage> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const found = receivedBy(address)[0];
    if (found) return found;
    if (Date.now() > deadline) throw new Error(`no message for ${address} within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

/**
 * Proves that nothing was sent to `addresses`: a plain email sent afterwards is delivered (the
 * worker is up and had its chance), then no send job is left anywhere, so anything queued for
 * `addresses` would be in the sink by now, and none of them received anything.
 */
async function expectNothingSentTo(addresses: string[]): Promise<void> {
  const marker = uniqueAddress('barrier');
  await sendPlain(stack, 'a@acme.test', marker, 'barrier');
  await waitForMessage(marker);
  await stack.drained();
  for (const a of addresses) expect(receivedBy(a)).toEqual([]);
}

const createPublished = (opts: CreateTemplateOptions) =>
  createdId(stack.resend.templates.create(opts).publish());

const ORDER_TEMPLATE = (alias: string): CreateTemplateOptions => ({
  name: 'Order shipped',
  alias,
  from: 'Acme Shop <shop@acme.test>',
  subject: 'Order {{{ORDER_ID}}} for {{{NAME}}}',
  replyTo: 'support@acme.test',
  html: '<p>Hi {{{NAME}}}, your {{{PRODUCT}}} ships in {{{DAYS}}} days.</p>',
  variables: [
    { key: 'NAME', type: 'string', fallbackValue: 'there' },
    { key: 'ORDER_ID', type: 'number' },
    { key: 'PRODUCT', type: 'string', fallbackValue: 'order' },
    { key: 'DAYS', type: 'number', fallbackValue: 3 },
  ],
});

describe('template CRUD (SDK)', () => {
  it('creates a draft, reads it by id and alias, lists, updates, duplicates and removes it', async () => {
    const alias = uniqueAlias('crud');
    const id = await createdId(
      stack.resend.templates.create({
        name: 'Welcome',
        alias,
        from: 'Acme <hi@acme.test>',
        subject: 'Welcome {{{NAME}}}',
        replyTo: ['a@acme.test', 'b@acme.test'],
        html: '<h1>Welcome {{{NAME}}}</h1>',
        text: 'Welcome {{{NAME}}}',
        variables: [{ key: 'NAME', type: 'string', fallbackValue: 'friend' }],
      }),
      'template',
    );

    const byId = ok(await stack.resend.templates.get(id));
    expect(byId).toMatchObject({
      object: 'template',
      id,
      alias,
      name: 'Welcome',
      status: 'draft',
      published_at: null,
      from: 'Acme <hi@acme.test>',
      subject: 'Welcome {{{NAME}}}',
      reply_to: ['a@acme.test', 'b@acme.test'],
      html: '<h1>Welcome {{{NAME}}}</h1>',
      text: 'Welcome {{{NAME}}}',
      current_version_id: expect.any(String),
      has_unpublished_versions: true,
    });
    expect(byId.variables).toEqual([
      expect.objectContaining({
        key: 'NAME',
        type: 'string',
        fallback_value: 'friend',
        created_at: expect.any(String),
      }),
    ]);
    const byAlias = await stack.resend.templates.get(alias);
    expect(byAlias.data).toEqual(byId);

    const list = await stack.resend.templates.list({ limit: 100 });
    expect(list.error).toBeNull();
    expect(list.data!.object).toBe('list');
    expect(list.data!.data.find((t) => t.id === id)).toEqual({
      id,
      name: 'Welcome',
      status: 'draft',
      published_at: null,
      created_at: expect.any(String),
      updated_at: expect.any(String),
      alias,
    });

    // Publish, then edit: the edit is a new unpublished version; the template stays published.
    expect((await stack.resend.templates.publish(alias)).data).toEqual({ object: 'template', id });
    const published = (await stack.resend.templates.get(id)).data!;
    expect(published).toMatchObject({ status: 'published', has_unpublished_versions: false });
    expect(published.published_at).not.toBeNull();
    const updated = await stack.resend.templates.update(alias, {
      subject: 'Hello {{{NAME}}}',
      replyTo: 'c@acme.test',
    });
    expect(updated.data).toEqual({ object: 'template', id });
    const edited = (await stack.resend.templates.get(id)).data!;
    expect(edited).toMatchObject({
      status: 'published',
      has_unpublished_versions: true,
      subject: 'Hello {{{NAME}}}',
      reply_to: ['c@acme.test'],
    });
    expect(edited.current_version_id).not.toBe(published.current_version_id);

    // duplicate().publish() chains on the duplicate's id.
    const dup = await stack.resend.templates.duplicate(id).publish();
    expect(dup.error).toBeNull();
    const copy = (await stack.resend.templates.get(dup.data!.id)).data!;
    expect(copy).toMatchObject({
      name: 'Welcome (copy)',
      alias: null,
      status: 'published',
      subject: 'Hello {{{NAME}}}',
    });

    const removed = await stack.resend.templates.remove(alias);
    expect(removed.data).toEqual({ object: 'template', id, deleted: true });
    expect((await stack.resend.templates.get(id)).error).toMatchObject({
      statusCode: 404,
      name: 'not_found',
    });
    expect((await stack.resend.templates.get(alias)).error).toMatchObject({
      statusCode: 404,
      name: 'not_found',
    });
    expect((await stack.resend.templates.remove(id)).error).toMatchObject({
      statusCode: 404,
      name: 'not_found',
    });
  });

  it('pages the list with limit and after/before', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) {
      const r = await stack.resend.templates.create({ name: `Page ${i}`, html: 'x' });
      ids.push(r.data!.id);
      // the next one is created in a later millisecond, so the newest-first order is defined
      const createdBy = Date.now();
      await waitUntil(() => Date.now() > createdBy, { intervalMs: 1, message: 'the clock to move on' });
    }
    const first = await stack.resend.templates.list({ limit: 2 });
    expect(first.data!.data.map((t) => t.id)).toEqual([ids[2], ids[1]]);
    expect(first.data!.has_more).toBe(true);
    const next = await stack.resend.templates.list({ limit: 1, after: ids[1]! });
    expect(next.data!.data.map((t) => t.id)).toEqual([ids[0]]);
    const back = await stack.resend.templates.list({ limit: 1, before: ids[1]! });
    expect(back.data!.data.map((t) => t.id)).toEqual([ids[2]]);
    const bad = await stack.http('/templates?limit=101');
    expect(bad).toMatchObject({ status: 422, body: { name: 'validation_error' } });
  });

  it('keeps aliases unique per team', async () => {
    const alias = uniqueAlias('dup');
    const bodies = Array.from({ length: 5 }, () => ({ name: 'Race', alias, html: 'x' }));
    const results = await Promise.all(bodies.map((b) => stack.resend.templates.create(b)));
    expect(results.filter((r) => r.error === null)).toHaveLength(1);
    for (const r of results.filter((r) => r.error !== null)) {
      expect(r.error).toMatchObject({ statusCode: 422, name: 'validation_error' });
      expect(r.error!.message).toContain('alias');
    }
    const other = await stack.resend.templates.create({
      name: 'Other',
      alias: uniqueAlias('other'),
      html: 'x',
    });
    const clash = await stack.resend.templates.update(other.data!.id, { alias });
    expect(clash.error).toMatchObject({ statusCode: 422, name: 'validation_error' });
  });

  it('validates template input: reserved, over-long and too many variable keys; addresses; the limits pass', async () => {
    expect(RESERVED_VARIABLES.size).toBeGreaterThan(0);
    for (const key of RESERVED_VARIABLES) {
      const r = await stack.resend.templates.create({
        name: 'R',
        html: 'x',
        variables: [{ key, type: 'string' }],
      });
      expect(r.error, key).toMatchObject({ statusCode: 422, name: 'validation_error' });
      expect(r.error!.message).toContain('variables[0].key');
      expect(r.error!.message).toContain('reserved');
    }
    const long = await stack.resend.templates.create({
      name: 'L',
      html: 'x',
      variables: [{ key: 'K'.repeat(51), type: 'string' }],
    });
    expect(long.error).toMatchObject({ statusCode: 422, name: 'validation_error' });
    expect(long.error!.message).toContain('50');
    const atLimit = await stack.resend.templates.create({
      name: 'L50',
      html: 'x',
      variables: [{ key: 'K'.repeat(50), type: 'string' }],
    });
    expect(atLimit.error).toBeNull();

    const vars = (n: number) =>
      Array.from({ length: n }, (_, i) => ({ key: `V${i}`, type: 'string' as const }));
    expect(
      (await stack.resend.templates.create({ name: 'N', html: 'x', variables: vars(51) })).error,
    ).toMatchObject({
      statusCode: 422,
      name: 'validation_error',
    });
    expect(
      (await stack.resend.templates.create({ name: 'N', html: 'x', variables: vars(50) })).error,
    ).toBeNull();

    const badChars = await stack.resend.templates.create({
      name: 'C',
      html: 'x',
      variables: [{ key: 'A-B', type: 'string' }],
    });
    expect(badChars.error).toMatchObject({ statusCode: 422, name: 'validation_error' });
    const wrongFallback = await stack.http('/templates', {
      method: 'POST',
      body: JSON.stringify({
        name: 'F',
        html: 'x',
        variables: [{ key: 'N', type: 'number', fallback_value: 'ten' }],
      }),
    });
    expect(wrongFallback).toMatchObject({ status: 422, body: { name: 'validation_error' } });
    expect(wrongFallback.body.message).toContain('variables[0].fallback_value');

    const badFrom = await stack.resend.templates.create({ name: 'F', html: 'x', from: 'not an address' });
    expect(badFrom.error).toMatchObject({ statusCode: 422, name: 'validation_error' });
    expect(badFrom.error!.message).toContain('from');
    const noName = await stack.http('/templates', { method: 'POST', body: JSON.stringify({ html: 'x' }) });
    expect(noName).toMatchObject({
      status: 422,
      body: { name: 'validation_error', message: 'name: is required' },
    });
    const badSubject = await stack.resend.templates.create({
      name: 'S',
      html: 'x',
      subject: 'a\r\nBcc: x@y.z',
    });
    expect(badSubject.error).toMatchObject({ statusCode: 422, name: 'validation_error' });
  });

  it('refuses to publish a template that uses undeclared variables', async () => {
    const r = await stack.resend.templates
      .create({
        name: 'U',
        html: '<p>{{{NAME}}} {{{MISSING}}}</p>',
        variables: [{ key: 'NAME', type: 'string' }],
      })
      .publish();
    expect(r.error).toMatchObject({ statusCode: 422, name: 'validation_error' });
    expect(r.error!.message).toContain('MISSING');
  });
});

describe('sending from a template', () => {
  it('renders a published template sent in a batch by alias, with values and fallbacks', async () => {
    const alias = uniqueAlias('order');
    await createPublished(ORDER_TEMPLATE(alias));
    const [ada, bob] = [uniqueAddress('ada'), uniqueAddress('bob')];
    const { data, error } = await stack.resend.batch.send([
      {
        to: ada,
        template: { id: alias, variables: { NAME: 'Ada', ORDER_ID: 42, PRODUCT: 'Telescope <XL>', DAYS: 2 } },
      },
      { to: bob, template: { id: alias, variables: { ORDER_ID: 7 } } },
    ]);
    expect(error).toBeNull();
    expect(data!.data).toHaveLength(2);

    const a = await waitForMessage(ada);
    expect(a.parsed.subject).toBe('Order 42 for Ada');
    expect(a.parsed.html).toContain('<p>Hi Ada, your Telescope &lt;XL&gt; ships in 2 days.</p>');
    expect(a.parsed.from).toMatchObject({ name: 'Acme Shop', address: 'shop@acme.test' });
    expect(a.parsed.replyTo?.map((x) => x.address)).toEqual(['support@acme.test']);
    // No template text: the text part is generated from the rendered html, as for a plain send.
    expect(a.parsed.text).toContain('Hi Ada, your Telescope <XL> ships in 2 days.');

    const b = await waitForMessage(bob);
    expect(b.parsed.subject).toBe('Order 7 for there');
    expect(b.parsed.html).toContain('<p>Hi there, your order ships in 3 days.</p>');

    // The record shows the rendered subject and the template's from.
    const rec = await stack.resend.emails.get(data!.data[1]!.id);
    expect(rec.data).toMatchObject({ subject: 'Order 7 for there', from: 'Acme Shop <shop@acme.test>' });
  });

  it('renders the template text when the template has one, and sends single emails by id', async () => {
    const id = await createPublished({
      name: 'With text',
      subject: 'Code {{{CODE}}}',
      from: 'a@acme.test',
      html: '<p>Your code is <b>{{{CODE}}}</b></p>',
      text: 'Code: {{{CODE}}} (valid {{{MINUTES}}} min)',
      variables: [
        { key: 'CODE', type: 'string' },
        { key: 'MINUTES', type: 'number', fallbackValue: 10 },
      ],
    });
    const to = uniqueAddress('single');
    const sent = await stack.resend.emails.send({ to, template: { id, variables: { CODE: 'X1<2' } } });
    expect(sent.error).toBeNull();
    const m = await waitForMessage(to);
    expect(m.parsed.subject).toBe('Code X1<2');
    expect(m.parsed.html).toContain('Your code is <b>X1&lt;2</b>');
    expect(m.parsed.text?.trim()).toBe('Code: X1<2 (valid 10 min)');
  });

  it('refuses an unpublished or unknown template, naming the index, and sends nothing', async () => {
    const draftAlias = uniqueAlias('draft');
    const draft = await stack.resend.templates.create({
      name: 'Draft',
      alias: draftAlias,
      subject: 's',
      from: 'a@acme.test',
      html: 'x',
    });
    expect(draft.error).toBeNull();
    const okAlias = uniqueAlias('ok');
    await createPublished({ name: 'OK', alias: okAlias, subject: 's', from: 'a@acme.test', html: 'ok' });
    const [r0, r1] = [uniqueAddress('unpub0'), uniqueAddress('unpub1')];

    const res = await stack.resend.batch.send([
      { to: r0, template: { id: okAlias } },
      { to: r1, template: { id: draftAlias } },
    ]);
    expect(res.error).toMatchObject({ statusCode: 422, name: 'validation_error' });
    expect(res.error!.message).toContain('emails[1].template.id');
    expect(res.error!.message).toContain('not published');

    const single = await stack.resend.emails.send({ to: r1, template: { id: draft.data!.id } });
    expect(single.error).toMatchObject({ statusCode: 422, name: 'validation_error' });
    expect(single.error!.message).toMatch(/^template\.id: /);

    const unknown = await stack.resend.emails.send({ to: r1, template: { id: 'no-such-template' } });
    expect(unknown.error).toMatchObject({ statusCode: 422, name: 'validation_error' });
    expect(unknown.error!.message).toContain('not found');

    // A draft-only edit of a published template is not what gets sent either (see versions test).
    await expectNothingSentTo([r0, r1]);
  });

  it('refuses a missing variable, naming it, and sends nothing', async () => {
    const alias = uniqueAlias('missing');
    await createPublished(ORDER_TEMPLATE(alias));
    const [r0, r1] = [uniqueAddress('miss0'), uniqueAddress('miss1')];
    const res = await stack.resend.batch.send([
      { to: r0, template: { id: alias, variables: { ORDER_ID: 1 } } },
      { to: r1, template: { id: alias, variables: { NAME: 'No order id' } } },
    ]);
    expect(res.error).toMatchObject({ statusCode: 422, name: 'validation_error' });
    expect(res.error!.message).toContain('emails[1].template.variables');
    expect(res.error!.message).toContain('ORDER_ID');
    await expectNothingSentTo([r0, r1]);
  });

  it('refuses a string for a number variable and a line break in a subject value', async () => {
    const alias = uniqueAlias('typed');
    await createPublished(ORDER_TEMPLATE(alias));
    const to = uniqueAddress('typed');
    const wrongType = await stack.resend.emails.send({
      to,
      template: { id: alias, variables: { ORDER_ID: '42' } },
    });
    expect(wrongType.error).toMatchObject({ statusCode: 422, name: 'validation_error' });
    expect(wrongType.error!.message).toContain('template.variables.ORDER_ID');
    const crlf = await stack.resend.emails.send({
      to,
      template: { id: alias, variables: { ORDER_ID: 1, NAME: 'Eve\r\nBcc: victim@example.test' } },
    });
    expect(crlf.error).toMatchObject({ statusCode: 422, name: 'validation_error' });
    expect(crlf.error!.message).toContain('template.variables.NAME');
    await expectNothingSentTo([to]);
  });

  it('lets from, subject and reply_to in the payload win over the template defaults', async () => {
    const alias = uniqueAlias('prec');
    await createPublished(ORDER_TEMPLATE(alias));
    const [over, keep] = [uniqueAddress('override'), uniqueAddress('defaults')];
    const res = await stack.resend.batch.send([
      {
        to: over,
        from: 'Billing <billing@acme.test>',
        subject: 'Your receipt',
        replyTo: ['help@acme.test', 'desk@acme.test'],
        template: { id: alias, variables: { ORDER_ID: 5 } },
      },
      { to: keep, template: { id: alias, variables: { ORDER_ID: 6 } } },
    ]);
    expect(res.error).toBeNull();
    const o = await waitForMessage(over);
    expect(o.parsed.from).toMatchObject({ name: 'Billing', address: 'billing@acme.test' });
    expect(o.parsed.subject).toBe('Your receipt');
    expect(o.parsed.replyTo?.map((x) => x.address)).toEqual(['help@acme.test', 'desk@acme.test']);
    expect(o.parsed.html).toContain('Hi there, your order ships in 3 days.');
    const k = await waitForMessage(keep);
    expect(k.parsed.from).toMatchObject({ address: 'shop@acme.test' });
    expect(k.parsed.subject).toBe('Order 6 for there');
    expect(k.parsed.replyTo?.map((x) => x.address)).toEqual(['support@acme.test']);
  });

  it('requires from and subject from the payload when the template has none', async () => {
    const alias = uniqueAlias('bare');
    await createPublished({ name: 'Bare', alias, html: '<p>bare</p>' });
    const [r0, r1, r2] = [uniqueAddress('nosubj'), uniqueAddress('nofrom'), uniqueAddress('bare-ok')];
    const noSubject = await stack.resend.batch.send([
      { to: r2, from: 'a@acme.test', subject: 'fine', template: { id: alias } },
      { to: r0, from: 'a@acme.test', template: { id: alias } },
    ]);
    expect(noSubject.error).toMatchObject({ statusCode: 422, name: 'validation_error' });
    expect(noSubject.error!.message).toContain('emails[1].subject');
    const noFrom = await stack.resend.emails.send({ to: r1, subject: 'x', template: { id: alias } });
    expect(noFrom.error).toMatchObject({ statusCode: 422, name: 'validation_error' });
    expect(noFrom.error!.message).toMatch(/^from: /);
    await expectNothingSentTo([r0, r1, r2]);

    const ok = await stack.resend.emails.send({
      to: r2,
      from: 'a@acme.test',
      subject: 'Given',
      template: { id: alias },
    });
    expect(ok.error).toBeNull();
    expect((await waitForMessage(r2)).parsed.subject).toBe('Given');
  });

  it('refuses template together with html or text', async () => {
    const alias = uniqueAlias('conflict');
    await createPublished({ name: 'C', alias, subject: 's', from: 'a@acme.test', html: 'x' });
    const res = await stack.http('/emails/batch', {
      method: 'POST',
      body: JSON.stringify([{ to: uniqueAddress('c'), html: '<p>x</p>', template: { id: alias } }]),
    });
    expect(res).toMatchObject({ status: 422, body: { name: 'validation_error' } });
    expect(res.body.message).toContain('emails[0].template');
  });

  it('refuses reserved and over-long variable keys and over-limit values; values at the limit pass', async () => {
    const alias = uniqueAlias('limits');
    const longKey = 'L'.repeat(50);
    await createPublished({
      name: 'Limits',
      alias,
      from: 'a@acme.test',
      subject: 'Limits',
      html: '<p>{{{S}}}|{{{N}}}|{{{' + longKey + '}}}</p>',
      variables: [
        { key: 'S', type: 'string' },
        { key: 'N', type: 'number' },
        { key: longKey, type: 'string', fallbackValue: 'k' },
      ],
    });
    const to = uniqueAddress('limits');
    const send = (variables: Record<string, string | number>) =>
      stack.resend.batch.send([{ to, template: { id: alias, variables } }]);

    for (const key of ['FIRST_NAME', 'LAST_NAME', 'EMAIL', 'UNSUBSCRIBE_URL']) {
      const r = await send({ S: 's', N: 1, [key]: 'x' });
      expect(r.error, key).toMatchObject({ statusCode: 422, name: 'validation_error' });
      expect(r.error!.message).toContain(`emails[0].template.variables.${key}`);
    }
    const longKeyRes = await send({ S: 's', N: 1, ['K'.repeat(51)]: 'x' });
    expect(longKeyRes.error).toMatchObject({ statusCode: 422, name: 'validation_error' });
    const badKey = await send({ S: 's', N: 1, 'a-b': 'x' });
    expect(badKey.error).toMatchObject({ statusCode: 422, name: 'validation_error' });
    const longValue = await send({ S: 'x'.repeat(2001), N: 1 });
    expect(longValue.error).toMatchObject({ statusCode: 422, name: 'validation_error' });
    expect(longValue.error!.message).toContain('emails[0].template.variables.S');
    const bigNumber = await send({ S: 's', N: Number.MAX_SAFE_INTEGER + 1 });
    expect(bigNumber.error).toMatchObject({ statusCode: 422, name: 'validation_error' });
    expect(bigNumber.error!.message).toContain('emails[0].template.variables.N');
    await expectNothingSentTo([to]);

    const atLimit = await send({
      S: 'é'.repeat(2000),
      N: Number.MAX_SAFE_INTEGER,
      [longKey]: 'long-key-value',
    });
    expect(atLimit.error).toBeNull();
    const m = await waitForMessage(to);
    expect(m.parsed.html).toContain(`<p>${'é'.repeat(2000)}|9007199254740991|long-key-value</p>`);
  });

  it('sends the version pinned at acceptance even if the template is published or deleted later', async () => {
    const alias = uniqueAlias('pinned');
    const id = await createPublished({
      name: 'Pinned',
      alias,
      from: 'a@acme.test',
      subject: 'Version one {{{NAME}}}',
      html: '<p>v1 {{{NAME}}}</p>',
      variables: [{ key: 'NAME', type: 'string', fallbackValue: 'friend' }],
    });
    const [early, late, deleted] = [
      uniqueAddress('pin-early'),
      uniqueAddress('pin-late'),
      uniqueAddress('pin-deleted'),
    ];
    // an email of the template to `to` for NAME, accepted now and due `inMs` later (or at once)
    const sendAs = async (to: string, name: string, inMs?: number) =>
      ok(
        await stack.resend.emails.send({
          to,
          ...(inMs !== undefined && { scheduledAt: new Date(Date.now() + inMs).toISOString() }),
          template: { id: alias, variables: { NAME: name } },
        }),
      );
    await sendAs(early, 'Ada', 2_500);

    // An unpublished edit does not change what new sends use.
    await stack.resend.templates.update(alias, {
      subject: 'Version two {{{NAME}}}',
      html: '<p>v2 {{{NAME}}}</p>',
    });
    await sendAs(late, 'Bob');
    const bob = await waitForMessage(late);
    expect(bob.parsed.subject).toBe('Version one Bob');
    expect(bob.parsed.html).toContain('<p>v1 Bob</p>');

    // Publishing v2 after the scheduled email was accepted does not change it.
    expect((await stack.resend.templates.publish(id)).error).toBeNull();
    const ada = await waitForMessage(early);
    expect(ada.parsed.subject).toBe('Version one Ada');
    expect(ada.parsed.html).toContain('<p>v1 Ada</p>');

    // Deleting the template after acceptance: the accepted email still renders its version.
    await sendAs(deleted, 'Cy', 1_500);
    expect((await stack.resend.templates.remove(id)).error).toBeNull();
    const cy = await waitForMessage(deleted);
    expect(cy.parsed.subject).toBe('Version two Cy');
    expect(cy.parsed.html).toContain('<p>v2 Cy</p>');
    // And the deleted template can no longer be sent from.
    const gone = await stack.resend.emails.send({ to: deleted, template: { id: alias } });
    expect(gone.error).toMatchObject({ statusCode: 422, name: 'validation_error' });
  });
});
