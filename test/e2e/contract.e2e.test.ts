/**
 * Contract e2e: every response of the routes Petrel serves, validated against Resend's own
 * OpenAPI 3.1 document (test/contract/resend-openapi.yaml, MIT, see resend-openapi.LICENSE; the
 * copy is upstream's file run through Prettier, which only changed quote style: it parses to the
 * same document).
 *
 * Each route of the API's router (`stack.routes`) is matched by position to a path of the
 * document (`/emails/:id` to `/emails/{email_id}`), called with a valid request (what it needs is
 * created first), and its status and JSON body are checked against the operation's declared
 * response. Routes the document lacks are listed in a test, so a new one forces a decision.
 * Schemas are used as published but for one listed overlay (SDK_NULLABLE): fields the official
 * `resend` SDK's own response types declare `T | null` while the document gives only `T`. The SDK
 * is what clients compile against, and Resend answers `null` there (no cc, no text part, no
 * alias); each entry is checked to be a real gap in the document, so the list cannot hide
 * anything else. `nullable` is an OpenAPI 3.0 keyword that 3.1 dropped, so it is an annotation
 * without effect (as `example` is).
 */
import { readFileSync } from 'node:fs';
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { parse } from 'yaml';
import { waitUntil } from '@petrel/testing';
import { email, fileDnsStack, otherTeam, type Stack } from './helpers.js';
import { automationBody, receivedEmail } from './team-resources.js';
import { connectApp, registerApp } from './oauth-flow.js';

// ajv-formats is CommonJS: its default export arrives as the module object under some loaders.
const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ??
  addFormatsModule) as unknown as (ajv: Ajv2020) => Ajv2020;

interface OpenApiResponse {
  content?: Record<string, { schema?: unknown }>;
}
interface OpenApiOperation {
  operationId?: string;
  responses?: Record<string, OpenApiResponse>;
}
interface OpenApiDocument {
  openapi: string;
  paths: Record<string, Record<string, OpenApiOperation>>;
  components: { schemas: Record<string, unknown> };
}

const DOC_ID = 'https://petrel.test/resend-openapi.json';
const doc = parse(
  readFileSync(new URL('../contract/resend-openapi.yaml', import.meta.url), 'utf8'),
) as OpenApiDocument;

/**
 * The document without `nullable`: ajv would read it as OpenAPI 3.0 does (adding `null` to the
 * type), but 3.1 has no such keyword, so dropping it is what a 3.1 reader does (it loosens nothing).
 */
function without3_0Nullable(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(without3_0Nullable);
  if (node === null || typeof node !== 'object') return node;
  return Object.fromEntries(
    Object.entries(node)
      .filter(([k]) => k !== 'nullable')
      .map(([k, v]) => [k, without3_0Nullable(v)]),
  );
}

/**
 * Schema → fields that the `resend` SDK's response types (node_modules/resend, `Email`,
 * `Template`, `TemplateVariable`, `TemplateListItem`) declare nullable and the document does not.
 */
const SDK_NULLABLE: Record<string, readonly string[]> = {
  Email: ['text', 'cc', 'bcc', 'reply_to'],
  Template: ['alias', 'from', 'subject', 'text'],
  TemplateListItem: ['alias'],
  TemplateVariable: ['fallback_value'],
};

/**
 * The same one level deeper: component → dotted paths into it (`items` steps into an array).
 * Each is a field the SDK types `T | null` (`Contact.first_name`, `ContactTopic.description`,
 * `Suppression.source_id`) and Resend answers `null` when there is none.
 */
const SDK_NULLABLE_NESTED: Record<string, readonly string[]> = {
  ListContactsResponseSuccess: ['data.items.first_name', 'data.items.last_name'],
  GetContactResponseSuccess: ['first_name', 'last_name'],
  GetContactTopicsResponseSuccess: ['data.items.description'],
  ListSuppressionsResponseSuccess: ['data.items.source_id'],
  GetSuppressionResponseSuccess: ['source_id'],
  // the SDK's Broadcast: `scheduled_at`, `sent_at`, `topic_id` are `string | null` (a draft has none)
  ListBroadcastsResponseSuccess: ['data.items.scheduled_at', 'data.items.sent_at', 'data.items.topic_id'],
  // and `reply_to`, `preview_text` too (`html`, `text`, `topic_id` are nullable in the document)
  GetBroadcastResponseSuccess: ['scheduled_at', 'sent_at', 'reply_to', 'preview_text'],
  // the SDK's InboundAttachment / AttachmentData: `content_id: string | null` (not inline → null)
  GetReceivedEmailResponse: ['attachments.items.content_id'],
  ListReceivedEmailsResponse: ['data.items.attachments.items.content_id'],
  ListAttachmentsResponse: ['data.items.content_id'],
  RetrievedAttachment: ['content_id'],
};

/** `schema` admitting `null` besides what it declares. */
const orNull = (schema: unknown): unknown => ({ anyOf: [schema, { type: 'null' }] });

type SchemaNode = {
  properties?: Record<string, SchemaNode>;
  items?: SchemaNode;
  type?: unknown;
  $ref?: string;
};

function withSdkNullables(d: OpenApiDocument): OpenApiDocument {
  const schemas = { ...d.components.schemas };
  for (const [name, fields] of Object.entries(SDK_NULLABLE)) {
    const schema = schemas[name] as { properties: Record<string, unknown> };
    const properties = { ...schema.properties };
    for (const field of fields) {
      const declared = properties[field] as { type?: unknown } | undefined;
      if (!declared) throw new Error(`SDK_NULLABLE: ${name}.${field} is not in the document`);
      if (Array.isArray(declared.type) && declared.type.includes('null'))
        throw new Error(`SDK_NULLABLE: ${name}.${field} is nullable in the document already`);
      properties[field] = orNull(declared);
    }
    schemas[name] = { ...schema, properties };
  }
  return { ...d, components: { ...d.components, schemas } };
}

function withNestedNullables(d: OpenApiDocument): OpenApiDocument {
  const out = structuredClone(d);
  for (const [name, fields] of Object.entries(SDK_NULLABLE_NESTED)) {
    const root = out.components.schemas[name] as SchemaNode | undefined;
    if (!root) throw new Error(`SDK_NULLABLE_NESTED: no schema ${name}`);
    for (const field of fields) {
      const steps = field.split('.');
      let parent: SchemaNode = root;
      for (const step of steps.slice(0, -1)) {
        const next: SchemaNode | undefined = step === 'items' ? parent.items : parent.properties?.[step];
        if (!next || next.$ref) throw new Error(`SDK_NULLABLE_NESTED: ${name}.${field} is not inline`);
        parent = next;
      }
      const last = steps.at(-1)!;
      const declared = parent.properties?.[last];
      if (!declared) throw new Error(`SDK_NULLABLE_NESTED: ${name}.${field} is not in the document`);
      if (Array.isArray(declared.type) && declared.type.includes('null'))
        throw new Error(`SDK_NULLABLE_NESTED: ${name}.${field} is nullable in the document already`);
      parent.properties![last] = orNull(declared) as SchemaNode;
    }
  }
  return out;
}

const ajv = new Ajv2020({ allErrors: true, strict: true, allowUnionTypes: true });
addFormats(ajv);
// The document's top-level OpenAPI fields and the `example` annotation its schemas carry.
ajv.addVocabulary([...Object.keys(doc), 'example']);
ajv.addSchema({ ...(without3_0Nullable(withNestedNullables(withSdkNullables(doc))) as object), $id: DOC_ID });

/** Routes Petrel serves that Resend's document does not have: a new one must be decided on. */
const NOT_IN_DOCUMENT = [
  'GET /api-keys/:id',
  'GET /health',
  'GET /ready',
  // the dashboard's icon, which browsers ask for at the site's root (no API operation)
  'GET /favicon.ico',
  // the official SDK calls these (contacts of a segment; the legacy audience-scoped contacts;
  // segments.update), the document does not list them
  'GET /segments/:id/contacts',
  'PATCH /segments/:id',
  'POST /audiences/:audienceId/contacts',
  'GET /audiences/:audienceId/contacts',
  'GET /audiences/:audienceId/contacts/:c',
  'PATCH /audiences/:audienceId/contacts/:c',
  'DELETE /audiences/:audienceId/contacts/:c',
  // the SDK's broadcasts.duplicate; the document lacks it
  'POST /broadcasts/:id/duplicate',
  // Petrel extension: a broadcast the protection rule paused goes on (answers as cancel does,
  // `{ object, id }`; test/e2e/broadcast-protection.e2e.test.ts)
  'POST /broadcasts/:id/resume',
  // the SDK's webhooks.rotateSigningSecret and webhooks.events.*; the document lacks them
  'POST /webhooks/:id/signing-secret/rotate',
  'GET /webhooks/:id/events',
  'GET /webhooks/:id/events/:eventId',
  'POST /webhooks/:id/events/:eventId/replay',
  'GET /webhooks/:id/events/:eventId/attempts',
  // the signed download link of a received email's raw message and attachments (no API key;
  // Resend serves these from its own storage)
  'GET /emails/receiving/downloads/:token',
  // a sent email's attachment download and a shared email's page and its sandboxed frame
  // (links without an API key: Resend serves these from its own storage and site)
  'GET /emails/downloads/:token',
  'GET /shared/:token',
  'GET /shared/:token/html',
  // open pixel and click redirect of tracked emails: fetched by mail clients, not API operations
  'GET /t/o/:token',
  'GET /t/c/:token',
  // unsubscribe links in emails (RFC 8058): pages for people, not API operations
  'GET /unsubscribe/:token',
  'POST /unsubscribe/:token',
  'POST /unsubscribe/:token/preferences',
  // inboxes (the SDK's resend.inboxes.*, a private beta the document does not describe yet;
  // test/e2e/inboxes.e2e.test.ts drives them through the SDK against its type definitions)
  'POST /inboxes',
  'GET /inboxes',
  'GET /inboxes/:inbox',
  'PATCH /inboxes/:inbox',
  'DELETE /inboxes/:inbox',
  'GET /inboxes/:inbox/agent',
  'PATCH /inboxes/:inbox/agent',
  'GET /inboxes/:inbox/labels',
  'POST /inboxes/:inbox/labels',
  'PATCH /inboxes/:inbox/labels/:label',
  'DELETE /inboxes/:inbox/labels/:label',
  'GET /inboxes/:inbox/threads',
  'GET /inboxes/:inbox/threads/search',
  'GET /inboxes/:inbox/threads/:thread',
  'PATCH /inboxes/:inbox/threads/:thread',
  'DELETE /inboxes/:inbox/threads/:thread',
  'POST /inboxes/:inbox/threads/:thread/labels',
  'PUT /inboxes/:inbox/threads/:thread/labels',
  'DELETE /inboxes/:inbox/threads/:thread/labels/:label',
  'GET /inboxes/:inbox/threads/:thread/emails',
  'GET /inboxes/:inbox/threads/:thread/emails/:email',
  'POST /inboxes/:inbox/threads/:thread/emails/:email/reply',
  'POST /inboxes/:inbox/threads/:thread/emails/:email/forward',
  'GET /inboxes/:inbox/drafts',
  'POST /inboxes/:inbox/drafts',
  'GET /inboxes/:inbox/drafts/:draft',
  'PATCH /inboxes/:inbox/drafts/:draft',
  'DELETE /inboxes/:inbox/drafts/:draft',
  'POST /inboxes/:inbox/drafts/:draft/send',
  // an event named `send` is read, re-typed and deleted at the path POST /events/send also has
  // (the document's /events/{identifier}, whose identifier is then the fixed segment)
  'GET /events/send',
  'PATCH /events/send',
  'DELETE /events/send',
  // the web dashboard: its files, its session (a full-access key exchanged for a cookie) and its
  // CSP reports; everything else it shows comes from the routes above
  'GET /dashboard',
  'GET /dashboard/*rest',
  'POST /dashboard/session',
  'GET /dashboard/session',
  'DELETE /dashboard/session',
  'POST /dashboard/csp-report',
  'GET /dashboard/csp-report',
  // an email's event timeline (a Petrel extension the dashboard shows)
  'GET /emails/:id/events',
  // deleting a sent email, which revokes its share and attachment links (a Petrel extension,
  // `{ object, id, deleted }` as Resend's other deletions; email-share-attachments.e2e.test.ts)
  'DELETE /emails/:id',
  // the dashboard's overview counters (a Petrel extension: sent, delivered, bounced… per hour)
  'GET /stats/emails',
  // OAuth 2.1 (docs/oauth.md): the authorization, token and revocation endpoints and the server
  // metadata (RFC 6749, RFC 7009, RFC 8414: their own wire, not Resend's API), and the
  // dashboard's consent page's two calls; oauth-grants.e2e.test.ts drives them
  'GET /oauth/authorize',
  'POST /oauth/token',
  'POST /oauth/revoke',
  'GET /.well-known/oauth-authorization-server',
  'GET /oauth/consent',
  'POST /oauth/consent',
  // the SDK's usage.get; the document lacks it (test/e2e/logs-usage.e2e.test.ts drives it
  // through the SDK against its type definitions)
  'GET /usage',
];

const METHODS = ['get', 'post', 'put', 'patch', 'delete'];
const isParam = (segment: string): boolean => /^[:{*]/.test(segment);
const segmentsOf = (path: string): string[] => path.split('/').filter(Boolean);

/** The document's path matching an Express path by position: fixed segments equal, params anywhere both have one. */
function documentPath(expressPath: string): string | undefined {
  const ours = segmentsOf(expressPath);
  return Object.keys(doc.paths).find((p) => {
    const theirs = segmentsOf(p);
    return (
      theirs.length === ours.length &&
      theirs.every((s, i) => (isParam(s) ? isParam(ours[i]!) : s === ours[i]))
    );
  });
}

function operation(method: string, expressPath: string): { path: string; op: OpenApiOperation } | undefined {
  const path = documentPath(expressPath);
  const op = path ? doc.paths[path]?.[method.toLowerCase()] : undefined;
  return path && op ? { path, op } : undefined;
}

const validators = new Map<string, ValidateFunction>();
/** The validator of a response's application/json schema; `$ref`s resolve inside the document. */
function validatorFor(path: string, method: string, status: string): ValidateFunction {
  const key = `${method} ${path} ${status}`;
  let v = validators.get(key);
  if (!v) {
    const pointer = `/paths/${path.replace(/~/g, '~0').replace(/\//g, '~1')}/${method}/responses/${status}/content/application~1json/schema`;
    // Compile through the document so local `#/components/...` refs resolve against it.
    v = ajv.compile({ $ref: `${DOC_ID}#${encodeURI(pointer)}` });
    validators.set(key, v);
  }
  return v;
}

type HttpResult = Awaited<ReturnType<Stack['http']>>;

/**
 * A body's violations, one line per field: `<field> <message> (<schema path>)`. Of a `oneOf`
 * that no branch matched, only the `oneOf` itself is kept (not each branch's complaint).
 */
function violations(validate: ValidateFunction, body: unknown): string[] {
  if (validate(body)) return [];
  const errors = validate.errors ?? [];
  const oneOfs = errors.filter((e) => e.keyword === 'oneOf').map((e) => e.schemaPath);
  return errors
    .filter((e) => !oneOfs.some((p) => e.schemaPath.startsWith(`${p}/`)))
    .map((e) => `${e.instancePath || '/'} ${e.message ?? e.keyword} (${e.schemaPath})`);
}

const contractOf = (route: string, path: string, status: string, res: HttpResult): string =>
  `${route} (document: ${route.split(' ')[0]} ${path} ${status}) answered ${JSON.stringify(res.body)}`;

/** Documented operations (METHOD + Express path) a test got a documented response from. */
const covered = new Set<string>();

/**
 * Checks a success response: its status is the operation's documented 2xx and its body
 * validates against that status's application/json schema. A validation failure is soft, so one
 * run reports every field that breaks the contract.
 */
function expectDocumented(method: string, expressPath: string, res: HttpResult, expected?: number): void {
  const route = `${method} ${expressPath}`;
  const found = operation(method, expressPath);
  expect(found, `${route} is in the document`).toBeDefined();
  const { path, op } = found!;
  const documented = Object.keys(op.responses ?? {}).filter((s) => /^2\d\d$/.test(s));
  // an operation documenting several 2xx (POST /domains/claim: 201 created, 200 existing) names the one expected
  if (expected === undefined) expect(documented, `${route}: one documented 2xx`).toHaveLength(1);
  const status = expected === undefined ? documented[0]! : String(expected);
  expect(documented, `${route}: ${status} is documented`).toContain(status);
  expect(res.status, `${route}: status (body ${JSON.stringify(res.body)})`).toBe(Number(status));
  const schema = op.responses![status]!.content?.['application/json']?.schema;
  expect(schema, `${route}: ${status} declares an application/json schema`).toBeDefined();
  expect
    .soft(
      violations(validatorFor(path, method.toLowerCase(), status), res.body),
      contractOf(route, path, status, res),
    )
    .toEqual([]);
  covered.add(route);
}

/** Error statuses a route answered with whose body the document gives no schema for. */
const undocumentedErrors = new Set<string>();

/** Checks an error response against the document's schema for that status, when it declares one. */
function expectDocumentedError(method: string, expressPath: string, res: HttpResult, status: number): void {
  const route = `${method} ${expressPath}`;
  expect(res.status, `${route}: status (body ${JSON.stringify(res.body)})`).toBe(status);
  const found = operation(method, expressPath);
  expect(found, `${route} is in the document`).toBeDefined();
  const { path, op } = found!;
  const schema = op.responses?.[String(status)]?.content?.['application/json']?.schema;
  if (schema === undefined) {
    undocumentedErrors.add(`${route} ${status}`);
    return;
  }
  expect
    .soft(
      violations(validatorFor(path, method.toLowerCase(), String(status)), res.body),
      contractOf(route, path, String(status), res),
    )
    .toEqual([]);
}

/** `dns`: the zone of the claimed domain (domain claims need a domain another team verified). */
const { stack, dns } = fileDnsStack();

const json = (method: string, body?: unknown): RequestInit => ({
  method,
  ...(body !== undefined && { body: JSON.stringify(body) }),
});
const inHours = (h: number): string => new Date(Date.now() + h * 3_600_000).toISOString();

describe('the document', () => {
  it('is OpenAPI 3.1 and every schema it refers to compiles', () => {
    expect(doc.openapi).toMatch(/^3\.1\./);
    for (const name of Object.keys(doc.components.schemas))
      expect(() => ajv.getSchema(`${DOC_ID}#/components/schemas/${name}`)).not.toThrow();
  });
});

describe('routes served against the document', () => {
  it('lists exactly the known routes the document lacks', () => {
    const served = stack.routes.map((r) => `${r.method} ${r.path}`);
    expect(served.filter((r) => !METHODS.includes(r.split(' ')[0]!.toLowerCase()))).toEqual([]);
    const missing = stack.routes
      .filter((r) => !operation(r.method, r.path))
      .map((r) => `${r.method} ${r.path}`)
      .sort();
    expect(missing).toEqual([...NOT_IN_DOCUMENT].sort());
  });

  it('emails: send, batch, list, get', async () => {
    const sent = await stack.http('/emails', json('POST', email(1, { to: ['contract-1@example.test'] })));
    expectDocumented('POST', '/emails', sent);
    const id = (sent.body as { id: string }).id;

    const batch = await stack.http(
      '/emails/batch',
      json('POST', [
        email(2, { to: ['contract-2@example.test'] }),
        email(3, { to: ['contract-3@example.test'], text: 'plain', cc: ['cc@example.test'] }),
      ]),
    );
    expectDocumented('POST', '/emails/batch', batch);
    const batchIds = (batch.body as { data: { id: string }[] }).data.map((d) => d.id);

    await stack.settled([id, ...batchIds]);

    expectDocumented('GET', '/emails/:id', await stack.http(`/emails/${id}`));
    expectDocumented('GET', '/emails/:id', await stack.http(`/emails/${batchIds[1]}`));
    expectDocumented('GET', '/emails', await stack.http('/emails?limit=10'));
  });

  it('scheduled emails: reschedule, cancel', async () => {
    const scheduled = await stack.http(
      '/emails',
      json('POST', email(4, { to: ['contract-4@example.test'], scheduled_at: inHours(1) })),
    );
    expectDocumented('POST', '/emails', scheduled);
    const id = (scheduled.body as { id: string }).id;

    expectDocumented('GET', '/emails/:id', await stack.http(`/emails/${id}`));
    expectDocumented(
      'PATCH',
      '/emails/:id',
      await stack.http(`/emails/${id}`, json('PATCH', { scheduled_at: inHours(2) })),
    );
    expectDocumented('POST', '/emails/:id/cancel', await stack.http(`/emails/${id}/cancel`, json('POST')));
    await stack.settled([id]);
    expectDocumented('GET', '/emails/:id', await stack.http(`/emails/${id}`));
  });

  it('api keys: create, list, rename, revoke', async () => {
    const created = await stack.http('/api-keys', json('POST', { name: 'contract' }));
    expectDocumented('POST', '/api-keys', created);
    const id = (created.body as { id: string }).id;
    const sending = await stack.http(
      '/api-keys',
      json('POST', { name: 'contract-sending', permission: 'sending_access' }),
    );
    expectDocumented('POST', '/api-keys', sending);
    // The new key is used once, so the list holds a key with `last_used_at` set and one without.
    const token = (created.body as { token: string }).token;
    expect((await stack.http('/emails?limit=1', { key: token })).status).toBe(200);

    expectDocumented('GET', '/api-keys', await stack.http('/api-keys'));
    expectDocumented(
      'PATCH',
      '/api-keys/:id',
      await stack.http(`/api-keys/${id}`, json('PATCH', { name: 'renamed' })),
    );
    expectDocumented('DELETE', '/api-keys/:id', await stack.http(`/api-keys/${id}`, json('DELETE')));
  });

  it('templates: create, list, get, update, publish, duplicate, remove', async () => {
    const alias = `contract-${randomUUID()}`;
    const created = await stack.http(
      '/templates',
      json('POST', {
        name: 'Contract',
        alias,
        from: 'Acme <hi@acme.test>',
        subject: 'Hi {{{NAME}}}',
        reply_to: ['support@acme.test'],
        html: '<p>Hi {{{NAME}}}, order {{{ORDER}}}</p>',
        variables: [
          { key: 'NAME', type: 'string', fallback_value: 'there' },
          { key: 'ORDER', type: 'number' },
        ],
      }),
    );
    expectDocumented('POST', '/templates', created);
    const id = (created.body as { id: string }).id;
    // A minimal one: only the required fields, so every optional field has its empty shape.
    const minimal = await stack.http('/templates', json('POST', { name: 'Minimal', html: '<p>x</p>' }));
    expectDocumented('POST', '/templates', minimal);
    const minimalId = (minimal.body as { id: string }).id;

    expectDocumented('GET', '/templates/:idOrAlias', await stack.http(`/templates/${id}`));
    expectDocumented('GET', '/templates/:idOrAlias', await stack.http(`/templates/${alias}`));
    expectDocumented('GET', '/templates/:idOrAlias', await stack.http(`/templates/${minimalId}`));
    expectDocumented('GET', '/templates', await stack.http('/templates?limit=100'));
    expectDocumented(
      'PATCH',
      '/templates/:idOrAlias',
      await stack.http(`/templates/${id}`, json('PATCH', { subject: 'Hello {{{NAME}}}' })),
    );
    expectDocumented(
      'POST',
      '/templates/:idOrAlias/publish',
      await stack.http(`/templates/${id}/publish`, json('POST')),
    );
    expectDocumented('GET', '/templates/:idOrAlias', await stack.http(`/templates/${id}`));
    const duplicate = await stack.http(`/templates/${id}/duplicate`, json('POST'));
    expectDocumented('POST', '/templates/:idOrAlias/duplicate', duplicate);
    expectDocumented('GET', '/templates', await stack.http('/templates?limit=100'));
    expectDocumented('DELETE', '/templates/:idOrAlias', await stack.http(`/templates/${id}`, json('DELETE')));
    expectDocumented(
      'DELETE',
      '/templates/:idOrAlias',
      await stack.http(`/templates/${(duplicate.body as { id: string }).id}`, json('DELETE')),
    );
    expectDocumented(
      'DELETE',
      '/templates/:idOrAlias',
      await stack.http(`/templates/${minimalId}`, json('DELETE')),
    );
  });

  it('topics and suppressions', async () => {
    const created = await stack.http(
      '/topics',
      json('POST', { name: 'Contract news', default_subscription: 'opt_in', description: 'Weekly' }),
    );
    expectDocumented('POST', '/topics', created);
    const topic = (created.body as { id: string }).id;
    expectDocumented('GET', '/topics', await stack.http('/topics'));
    expectDocumented('GET', '/topics/:id', await stack.http(`/topics/${topic}`));
    expectDocumented(
      'PATCH',
      '/topics/:id',
      await stack.http(`/topics/${topic}`, json('PATCH', { name: 'Renamed' })),
    );

    const added = await stack.http('/suppressions', json('POST', { email: 'contract-sup@example.test' }));
    expectDocumented('POST', '/suppressions', added);
    const sup = (added.body as { id: string }).id;
    expectDocumented('GET', '/suppressions', await stack.http('/suppressions'));
    expectDocumented('GET', '/suppressions', await stack.http('/suppressions?origin=manual&limit=5'));
    expectDocumented('GET', '/suppressions/:idOrEmail', await stack.http(`/suppressions/${sup}`));
    expectDocumented(
      'GET',
      '/suppressions/:idOrEmail',
      await stack.http(`/suppressions/${encodeURIComponent('contract-sup@example.test')}`),
    );
    const batch = await stack.http(
      '/suppressions/batch/add',
      json('POST', { emails: ['contract-b1@example.test', 'contract-b2@example.test'] }),
    );
    expectDocumented('POST', '/suppressions/batch/add', batch);
    expectDocumented(
      'POST',
      '/suppressions/batch/remove',
      await stack.http('/suppressions/batch/remove', json('POST', { emails: ['contract-b1@example.test'] })),
    );
    expectDocumented(
      'DELETE',
      '/suppressions/:idOrEmail',
      await stack.http(`/suppressions/${sup}`, json('DELETE')),
    );
    expectDocumented('DELETE', '/topics/:id', await stack.http(`/topics/${topic}`, json('DELETE')));
  });

  it('contacts, contact properties, segments, audiences, contact topics, imports', async () => {
    const prop = await stack.http(
      '/contact-properties',
      json('POST', { key: 'plan', type: 'string', fallback_value: 'free' }),
    );
    expectDocumented('POST', '/contact-properties', prop);
    const propId = (prop.body as { id: string }).id;
    expectDocumented('GET', '/contact-properties', await stack.http('/contact-properties'));
    expectDocumented('GET', '/contact-properties/:id', await stack.http(`/contact-properties/${propId}`));
    expectDocumented(
      'PATCH',
      '/contact-properties/:id',
      await stack.http(`/contact-properties/${propId}`, json('PATCH', { fallback_value: 'trial' })),
    );

    const segment = await stack.http('/segments', json('POST', { name: 'Contract segment' }));
    expectDocumented('POST', '/segments', segment);
    const segmentId = (segment.body as { id: string }).id;
    expectDocumented('GET', '/segments', await stack.http('/segments'));
    expectDocumented('GET', '/segments/:id', await stack.http(`/segments/${segmentId}`));
    const audience = await stack.http('/audiences', json('POST', { name: 'Contract audience' }));
    expectDocumented('POST', '/audiences', audience);
    const audienceId = (audience.body as { id: string }).id;
    expectDocumented('GET', '/audiences', await stack.http('/audiences'));
    expectDocumented('GET', '/audiences/:id', await stack.http(`/audiences/${audienceId}`));

    const topic = (
      await stack.http('/topics', json('POST', { name: 'Contract t', default_subscription: 'opt_out' }))
    ).body as { id: string };
    const address = 'contract-contact@example.test';
    const contact = await stack.http(
      '/contacts',
      json('POST', {
        email: address,
        first_name: 'Ada',
        properties: { plan: 'pro' },
        segments: [{ id: segmentId }],
        topics: [{ id: topic.id, subscription: 'opt_in' }],
      }),
    );
    expectDocumented('POST', '/contacts', contact);
    const contactId = (contact.body as { id: string }).id;
    const minimal = await stack.http('/contacts', json('POST', { email: 'contract-minimal@example.test' }));
    expectDocumented('POST', '/contacts', minimal);
    expectDocumented('GET', '/contacts', await stack.http('/contacts'));
    expectDocumented('GET', '/contacts', await stack.http('/contacts?limit=1'));
    expectDocumented('GET', '/contacts/:c', await stack.http(`/contacts/${contactId}`));
    expectDocumented('GET', '/contacts/:c', await stack.http(`/contacts/${address}`));
    expectDocumented(
      'PATCH',
      '/contacts/:c',
      await stack.http(`/contacts/${address}`, json('PATCH', { last_name: 'Lovelace', unsubscribed: false })),
    );
    expectDocumented('GET', '/contacts/:c/segments', await stack.http(`/contacts/${contactId}/segments`));
    expectDocumented(
      'POST',
      '/contacts/:c/segments/:segmentId',
      await stack.http(`/contacts/${contactId}/segments/${audienceId}`, json('POST')),
    );
    expectDocumented(
      'DELETE',
      '/contacts/:c/segments/:segmentId',
      await stack.http(`/contacts/${contactId}/segments/${audienceId}`, json('DELETE')),
    );
    expectDocumented('GET', '/contacts/:c/topics', await stack.http(`/contacts/${address}/topics`));
    expectDocumented(
      'PATCH',
      '/contacts/:c/topics',
      await stack.http(
        `/contacts/${address}/topics`,
        json('PATCH', [{ id: topic.id, subscription: 'opt_out' }]),
      ),
    );

    const form = new FormData();
    form.set(
      'file',
      new Blob(['email,first_name\ncontract-import@example.test,Imp\n'], { type: 'text/csv' }),
      'c.csv',
    );
    form.set('on_conflict', 'upsert');
    const imported = await stack.http('/contacts/imports', { method: 'POST', body: form });
    expectDocumented('POST', '/contacts/imports', imported);
    const importId = (imported.body as { id: string }).id;
    await waitUntil(
      async () =>
        ((await stack.http(`/contacts/imports/${importId}`)).body as { status: string }).status ===
        'completed',
      { timeoutMs: 15_000, message: 'the import to complete' },
    );
    expectDocumented('GET', '/contacts/imports/:id', await stack.http(`/contacts/imports/${importId}`));
    expectDocumented('GET', '/contacts/imports', await stack.http('/contacts/imports'));

    expectDocumented('DELETE', '/contacts/:c', await stack.http(`/contacts/${contactId}`, json('DELETE')));
    expectDocumented('DELETE', '/segments/:id', await stack.http(`/segments/${segmentId}`, json('DELETE')));
    expectDocumented(
      'DELETE',
      '/audiences/:id',
      await stack.http(`/audiences/${audienceId}`, json('DELETE')),
    );
    expectDocumented(
      'DELETE',
      '/contact-properties/:id',
      await stack.http(`/contact-properties/${propId}`, json('DELETE')),
    );
  });

  it('broadcasts: create, list, get, update, send (scheduled), cancel, duplicate, remove', async () => {
    const segment = (await stack.http('/segments', json('POST', { name: 'Contract broadcast segment' })))
      .body as { id: string };
    const created = await stack.http(
      '/broadcasts',
      json('POST', {
        segment_id: segment.id,
        name: 'Contract broadcast',
        from: 'Acme <news@acme.test>',
        subject: 'Hi {{{contact.first_name|there}}}',
        reply_to: 'support@acme.test',
        html: '<p>Hi</p>',
        text: 'Hi',
        preview_text: 'Preview',
      }),
    );
    expectDocumented('POST', '/broadcasts', created);
    const id = (created.body as { id: string }).id;
    const minimal = await stack.http(
      '/broadcasts',
      json('POST', { segment_id: segment.id, from: 'news@acme.test', subject: 'Hi', html: '<p>x</p>' }),
    );
    expectDocumented('POST', '/broadcasts', minimal);
    const minimalId = (minimal.body as { id: string }).id;
    expectDocumented('GET', '/broadcasts', await stack.http('/broadcasts'));
    expectDocumented('GET', '/broadcasts/:id', await stack.http(`/broadcasts/${id}`));
    expectDocumented('GET', '/broadcasts/:id', await stack.http(`/broadcasts/${minimalId}`));
    expectDocumented(
      'PATCH',
      '/broadcasts/:id',
      await stack.http(`/broadcasts/${id}`, json('PATCH', { subject: 'Hello' })),
    );
    expectDocumented(
      'POST',
      '/broadcasts/:id/send',
      await stack.http(`/broadcasts/${id}/send`, json('POST', { scheduled_at: inHours(2) })),
    );
    expectDocumented('GET', '/broadcasts/:id', await stack.http(`/broadcasts/${id}`));
    expectDocumented(
      'POST',
      '/broadcasts/:id/cancel',
      await stack.http(`/broadcasts/${id}/cancel`, json('POST')),
    );
    const copy = await stack.http(`/broadcasts/${minimalId}/duplicate`, json('POST'));
    expect(copy.status).toBe(200);
    expectDocumented(
      'DELETE',
      '/broadcasts/:id',
      await stack.http(`/broadcasts/${minimalId}`, json('DELETE')),
    );
    expectDocumented(
      'DELETE',
      '/broadcasts/:id',
      await stack.http(`/broadcasts/${(copy.body as { id: string }).id}`, json('DELETE')),
    );
  });

  it('received emails: list, get, attachments', async () => {
    const received = await receivedEmail(stack, 'contract-inbound');
    expectDocumented('GET', '/emails/receiving', await stack.http('/emails/receiving'));
    expectDocumented('GET', '/emails/receiving', await stack.http('/emails/receiving?limit=1'));
    expectDocumented('GET', '/emails/receiving/:id', await stack.http(`/emails/receiving/${received.id}`));
    expectDocumented(
      'GET',
      '/emails/receiving/:emailId/attachments',
      await stack.http(`/emails/receiving/${received.id}/attachments`),
    );
    expectDocumented(
      'GET',
      '/emails/receiving/:emailId/attachments/:id',
      await stack.http(`/emails/receiving/${received.id}/attachments/${received.attachmentId}`),
    );
  });

  it('sent emails: attachments list and get, share', async () => {
    const sent = await stack.http(
      '/emails',
      json('POST', {
        ...email(7, { to: ['contract-7@example.test'] }),
        attachments: [
          { filename: 'a.txt', content: Buffer.from('a').toString('base64') },
          { content: Buffer.from('b').toString('base64'), content_id: 'img' },
        ],
      }),
    );
    expectDocumented('POST', '/emails', sent);
    const id = (sent.body as { id: string }).id;
    const listed = await stack.http(`/emails/${id}/attachments`);
    expectDocumented('GET', '/emails/:emailId/attachments', listed);
    expectDocumented(
      'GET',
      '/emails/:emailId/attachments',
      await stack.http(`/emails/${id}/attachments?limit=1`),
    );
    for (const a of (listed.body as { data: { id: string }[] }).data)
      expectDocumented(
        'GET',
        '/emails/:emailId/attachments/:id',
        await stack.http(`/emails/${id}/attachments/${a.id}`),
      );
    expectDocumented('POST', '/emails/:id/share', await stack.http(`/emails/${id}/share`, json('POST')));
    expectDocumented(
      'POST',
      '/emails/:id/share',
      await stack.http(`/emails/${id}/share`, json('POST', { expires_in: '10m' })),
    );
  });

  it('email metrics, broadcast recipients and clicked links', async () => {
    const sent = await stack.http('/emails', json('POST', email(900, { subject: 'Contract metrics' })));
    expect(sent.status).toBe(200);
    for (const q of [
      '',
      '?dimensions=period&granularity=hourly&timezone=America/New_York',
      '?dimensions=period,domain&metrics=sent,delivered,delivery_rate',
      `?dimensions=email&email_id=${(sent.body as { id: string }).id}`,
    ]) {
      expectDocumented('GET', '/emails/metrics', await stack.http(`/emails/metrics${q}`));
    }
    const segment = (await stack.http('/segments', json('POST', { name: 'Contract analytics segment' })))
      .body as { id: string };
    const contact = await stack.http(
      '/contacts',
      json('POST', { email: 'reader@contract.test', segments: [{ id: segment.id }] }),
    );
    expect(contact.status).toBeLessThan(300);
    const created = await stack.http(
      '/broadcasts',
      json('POST', {
        segment_id: segment.id,
        from: 'news@acme.test',
        subject: 'Hi',
        html: '<p>x</p>',
        send: true,
      }),
    );
    expect(created.status).toBeLessThan(300);
    const id = (created.body as { id: string }).id;
    const recipients = await waitUntil(
      async () => {
        const r = await stack.http(`/broadcasts/${id}/recipients?type=sent`);
        return (r.body as { data?: unknown[] }).data?.length === 1 ? r : null;
      },
      { timeoutMs: 30_000, message: 'the broadcast sent' },
    );
    expectDocumented('GET', '/broadcasts/:id/recipients', recipients);
    expectDocumented(
      'GET',
      '/broadcasts/:id/recipients',
      await stack.http(`/broadcasts/${id}/recipients?type=clicked`),
    );
    expectDocumented(
      'GET',
      '/broadcasts/:id/clicked-links',
      await stack.http(`/broadcasts/${id}/clicked-links`),
    );
    expectDocumented(
      'GET',
      '/emails/metrics',
      await stack.http(`/emails/metrics?dimensions=broadcast,period`),
    );
  });

  it('events: create, list, get by id and name, update, send, remove', async () => {
    const name = `contract.${randomUUID()}`;
    const created = await stack.http(
      '/events',
      json('POST', { name, schema: { plan: 'string', seats: 'number' } }),
    );
    expectDocumented('POST', '/events', created);
    const id = (created.body as { id: string }).id;
    const bare = await stack.http('/events', json('POST', { name: `${name}.bare` }));
    expectDocumented('POST', '/events', bare);

    expectDocumented('GET', '/events', await stack.http('/events?limit=10'));
    expectDocumented('GET', '/events/:idOrName', await stack.http(`/events/${id}`));
    expectDocumented(
      'GET',
      '/events/:idOrName',
      await stack.http(`/events/${encodeURIComponent(`${name}.bare`)}`),
    );
    expectDocumented(
      'PATCH',
      '/events/:idOrName',
      await stack.http(`/events/${id}`, json('PATCH', { schema: { plan: 'string', at: 'date' } })),
    );
    expectDocumented(
      'POST',
      '/events/send',
      await stack.http(
        '/events/send',
        json('POST', { event: name, email: 'contract-event@example.test', payload: { plan: 'pro' } }),
      ),
    );
    expectDocumented('DELETE', '/events/:idOrName', await stack.http(`/events/${id}`, json('DELETE')));
  });

  it('automations: create, list, get, update, runs, stop, duplicate, remove', async () => {
    const event = `contract.automation.${randomUUID()}`;
    const created = await stack.http(
      '/automations',
      json('POST', automationBody('Contract', 'enabled', event)),
    );
    expectDocumented('POST', '/automations', created);
    const id = (created.body as { id: string }).id;
    expect(
      (await stack.http('/events/send', json('POST', { event, email: 'contract-run@example.test' }))).status,
    ).toBe(202);
    const runs = await waitUntil(async () => {
      const res = await stack.http(`/automations/${id}/runs`);
      return (res.body as { data: unknown[] }).data.length > 0 ? res : undefined;
    });
    expectDocumented('GET', '/automations/:automationId/runs', runs);
    const runId = (runs.body as { data: { id: string }[] }).data[0]!.id;
    expectDocumented(
      'GET',
      '/automations/:automationId/runs/:runId',
      await stack.http(`/automations/${id}/runs/${runId}`),
    );
    expectDocumented('GET', '/automations', await stack.http('/automations?limit=10'));
    expectDocumented('GET', '/automations/:automationId', await stack.http(`/automations/${id}`));
    expectDocumented(
      'PATCH',
      '/automations/:automationId',
      await stack.http(`/automations/${id}`, json('PATCH', { name: 'Renamed' })),
    );
    expectDocumented(
      'POST',
      '/automations/:automationId/duplicate',
      await stack.http(`/automations/${id}/duplicate`, json('POST')),
    );
    expectDocumented(
      'POST',
      '/automations/:automationId/stop',
      await stack.http(`/automations/${id}/stop`, json('POST')),
    );
    expectDocumented(
      'DELETE',
      '/automations/:automationId',
      await stack.http(`/automations/${id}`, json('DELETE')),
    );
  });

  it('domains: create, list, get, update, verify, remove', async () => {
    const created = await stack.http(
      '/domains',
      json('POST', {
        name: `contract-${randomUUID().slice(0, 8)}.example.test`,
        custom_return_path: 'bounce',
        capabilities: { sending: 'enabled', receiving: 'enabled' },
        open_tracking: true,
        tls: 'enforced',
      }),
    );
    expectDocumented('POST', '/domains', created);
    const id = (created.body as { id: string }).id;
    const minimal = await stack.http(
      '/domains',
      json('POST', { name: `contract-${randomUUID().slice(0, 8)}.example.test` }),
    );
    expectDocumented('POST', '/domains', minimal);
    expectDocumented('GET', '/domains', await stack.http('/domains?limit=10'));
    expectDocumented('GET', '/domains/:id', await stack.http(`/domains/${id}`));
    expectDocumented(
      'PATCH',
      '/domains/:id',
      await stack.http(`/domains/${id}`, json('PATCH', { click_tracking: true })),
    );
    expectDocumented('POST', '/domains/:id/verify', await stack.http(`/domains/${id}/verify`, json('POST')));
    expectDocumented('GET', '/domains/:id', await stack.http(`/domains/${id}`));
    expectDocumented('DELETE', '/domains/:id', await stack.http(`/domains/${id}`, json('DELETE')));
  });

  it('domain claims: create (201, then 200 for the open claim), get, verify', async () => {
    const name = `claim-${randomUUID().slice(0, 8)}.example.test`;
    const held = await stack.http('/domains', json('POST', { name }));
    const records = (
      held.body as { records: { name: string; type: 'TXT' | 'MX'; value: string; priority?: number }[] }
    ).records;
    for (const r of records)
      dns.add({ name: r.name, type: r.type, value: r.value, ...(r.priority && { priority: r.priority }) });
    await stack.http(`/domains/${(held.body as { id: string }).id}/verify`, json('POST'));
    const { key } = await otherTeam(stack, 'contract-claimant');
    const created = await stack.http('/domains/claim', { ...json('POST', { name }), key });
    expectDocumented('POST', '/domains/claim', created, 201);
    expectDocumented(
      'POST',
      '/domains/claim',
      await stack.http('/domains/claim', { ...json('POST', { name }), key }),
      200,
    );
    const id = (created.body as { domain_id: string }).domain_id;
    expectDocumented('GET', '/domains/:id/claim', await stack.http(`/domains/${id}/claim`, { key }));
    expectDocumented(
      'POST',
      '/domains/:id/claim/verify',
      await stack.http(`/domains/${id}/claim/verify`, { ...json('POST'), key }),
    );
  });

  it('webhooks: create, list, get, update, remove', async () => {
    const created = await stack.http(
      '/webhooks',
      json('POST', { endpoint: 'http://127.0.0.1:9/hook', events: ['email.sent', 'email.delivered'] }),
    );
    expectDocumented('POST', '/webhooks', created);
    const id = (created.body as { id: string }).id;
    expectDocumented('GET', '/webhooks', await stack.http('/webhooks'));
    expectDocumented('GET', '/webhooks/:id', await stack.http(`/webhooks/${id}`));
    expectDocumented(
      'PATCH',
      '/webhooks/:id',
      await stack.http(`/webhooks/${id}`, json('PATCH', { events: ['email.bounced'], status: 'disabled' })),
    );
    expectDocumented('GET', '/webhooks/:id', await stack.http(`/webhooks/${id}`));
    expectDocumented('DELETE', '/webhooks/:id', await stack.http(`/webhooks/${id}`, json('DELETE')));
  });

  it('logs: list, get', async () => {
    const sent = await stack.http('/emails', json('POST', email(5, { to: ['contract-log@example.test'] })));
    expect(sent.status).toBe(200);
    type Listed = { data: { id: string; endpoint: string; method: string }[] };
    const isSend = (l: Listed['data'][number]) => l.endpoint === '/emails' && l.method === 'POST';
    // written just after the response: wait for it to show
    const listed = await waitUntil(
      async () => {
        const res = await stack.http('/logs?limit=100');
        return (res.body as Listed).data.some(isSend) ? res : undefined;
      },
      { message: 'the log of POST /emails' },
    );
    expectDocumented('GET', '/logs', listed);
    expectDocumented('GET', '/logs', await stack.http('/logs?limit=1'));
    const id = (listed.body as Listed).data.find(isSend)!.id;
    expectDocumented('GET', '/logs/:id', await stack.http(`/logs/${id}`));
    await stack.settled([(sent.body as { id: string }).id]);
  });

  it('oauth grants: list, revoke', async () => {
    const { grantId } = await connectApp(stack, await registerApp(stack), stack.key, 'full_access');
    expectDocumented('GET', '/oauth/grants', await stack.http('/oauth/grants'));
    expectDocumented(
      'DELETE',
      '/oauth/grants/:id',
      await stack.http(`/oauth/grants/${grantId}`, json('DELETE')),
    );
    // a revoked grant as the list shows it (revoked_at and revoked_reason set)
    expectDocumented('GET', '/oauth/grants', await stack.http('/oauth/grants?limit=1'));
  });

  it('error bodies: 404 and 422 against the schema the document declares for them', async () => {
    const unknown = randomUUID();
    expectDocumentedError('GET', '/emails/:id', await stack.http(`/emails/${unknown}`), 404);
    expectDocumentedError(
      'PATCH',
      '/emails/:id',
      await stack.http(`/emails/${unknown}`, json('PATCH', { scheduled_at: inHours(1) })),
      404,
    );
    expectDocumentedError(
      'POST',
      '/emails/:id/cancel',
      await stack.http(`/emails/${unknown}/cancel`, json('POST')),
      404,
    );
    expectDocumentedError('GET', '/templates/:idOrAlias', await stack.http(`/templates/${unknown}`), 404);
    expectDocumentedError(
      'PATCH',
      '/api-keys/:id',
      await stack.http(`/api-keys/${unknown}`, json('PATCH', { name: 'x' })),
      404,
    );
    expectDocumentedError(
      'DELETE',
      '/api-keys/:id',
      await stack.http(`/api-keys/${unknown}`, json('DELETE')),
      404,
    );
    expectDocumentedError(
      'POST',
      '/emails',
      await stack.http('/emails', json('POST', { subject: 'no sender' })),
      422,
    );
    expectDocumentedError(
      'POST',
      '/emails/batch',
      await stack.http('/emails/batch', json('POST', [{ subject: 'x' }])),
      422,
    );
    expectDocumentedError(
      'POST',
      '/templates',
      await stack.http('/templates', json('POST', { name: 'no html' })),
      422,
    );
    expectDocumentedError('POST', '/api-keys', await stack.http('/api-keys', json('POST', {})), 422);
    await stack.drained();
    // The document declares no body for these: listed, so a schema it gains gets checked.
    expect([...undocumentedErrors].sort()).toEqual(
      [
        'DELETE /api-keys/:id 404',
        'GET /emails/:id 404',
        'GET /templates/:idOrAlias 404',
        'PATCH /api-keys/:id 404',
        'PATCH /emails/:id 404',
        'POST /api-keys 422',
        'POST /emails 422',
        'POST /emails/:id/cancel 404',
        'POST /emails/batch 422',
        'POST /templates 422',
      ].sort(),
    );
  });

  it('serves every operation the document has', () => {
    const served = new Set(
      stack.routes.flatMap((r) => {
        const found = operation(r.method, r.path);
        return found ? [`${r.method.toUpperCase()} ${found.path}`] : [];
      }),
    );
    const operations = Object.entries(doc.paths).flatMap(([path, item]) =>
      Object.keys(item ?? {})
        .filter((m) => METHODS.includes(m))
        .map((m) => `${m.toUpperCase()} ${path}`),
    );
    expect(operations.filter((op) => !served.has(op))).toEqual([]);
  });

  it('covered every route it serves that the document has', () => {
    const documented = stack.routes
      .filter((r) => operation(r.method, r.path))
      .map((r) => `${r.method} ${r.path}`)
      .sort();
    expect([...covered].sort()).toEqual(documented);
  });
});
