import { LIMITS, RESERVED_VARIABLES } from '@petrel/contracts';
import { describe, expect, it } from 'vitest';
import { validateEmail, type ValidateEmailOptions } from './validate-email.js';

const nowMs = Date.parse('2026-11-21T10:00:00.000Z');
const single: ValidateEmailOptions = { nowMs, context: 'single' };
const batch3: ValidateEmailOptions = { nowMs, context: 'batch', index: 3 };

const base = (): Record<string, unknown> => ({
  from: 'Acme <hello@acme.example>',
  to: 'jane@example.com',
  subject: 'Hello',
  html: '<p>Hi</p>',
});
const withFields = (fields: Record<string, unknown>) => ({ ...base(), ...fields });

function accept(body: unknown, opts = single) {
  const r = validateEmail(body, opts);
  if (!r.ok) throw new Error(`expected acceptance, got: ${r.message}`);
  return r.email;
}
function refuse(body: unknown, opts = single): string {
  const r = validateEmail(body, opts);
  if (r.ok) throw new Error(`expected refusal of ${JSON.stringify(body)}`);
  return r.message;
}
const addresses = (n: number) => Array.from({ length: n }, (_, i) => `user${i}@example.com`);
const variables = (n: number) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`V${i}`, i]));

describe('validateEmail: normalisation', () => {
  it('returns the normalised email with lists as arrays', () => {
    expect(accept(base())).toEqual({
      from: 'Acme <hello@acme.example>',
      to: ['jane@example.com'],
      cc: [],
      bcc: [],
      reply_to: [],
      subject: 'Hello',
      html: '<p>Hi</p>',
      headers: {},
      tags: [],
      attachments: [],
    });
  });

  it('keeps text "" (turns off generated text) and every optional field', () => {
    const email = accept(
      withFields({
        text: '',
        cc: ['c@example.com'],
        bcc: 'b@example.com',
        reply_to: ['"Support, Team" <support@acme.example>'],
        headers: { 'X-Entity-Ref-ID': '123', 'List-Unsubscribe': '<https://acme.example/u>' },
        tags: [{ name: 'category', value: 'confirm_email' }],
        topic_id: 'b6d24b8e-af0b-4c3c-be0c-359bbd97381e',
      }),
    );
    expect(email.text).toBe('');
    expect(email.cc).toEqual(['c@example.com']);
    expect(email.bcc).toEqual(['b@example.com']);
    expect(email.reply_to).toEqual(['"Support, Team" <support@acme.example>']);
    expect(email.headers).toEqual({
      'X-Entity-Ref-ID': '123',
      'List-Unsubscribe': '<https://acme.example/u>',
    });
    expect(email.tags).toEqual([{ name: 'category', value: 'confirm_email' }]);
    expect(email.topic_id).toBe('b6d24b8e-af0b-4c3c-be0c-359bbd97381e');
  });

  it('treats null optional fields (and topic_id: null) as absent', () => {
    const email = accept(withFields({ cc: null, text: null, headers: null, tags: null, topic_id: null }));
    expect(email.cc).toEqual([]);
    expect('text' in email).toBe(false);
    expect('topic_id' in email).toBe(false);
  });

  it('keeps a header named __proto__ as data', () => {
    const email = accept(withFields({ headers: JSON.parse('{"__proto__":"x"}') as unknown }));
    expect(Object.keys(email.headers)).toEqual(['__proto__']);
  });
});

describe('validateEmail: required fields', () => {
  it.each(['from', 'to', 'subject'])('refuses a missing %s', (field) => {
    const body = base();
    delete body[field];
    expect(refuse(body)).toBe(`${field}: is required`);
    expect(refuse(withFields({ [field]: '' }))).toBe(`${field}: is required`);
  });

  it('prefixes the batch index', () => {
    const body = base();
    delete body.from;
    expect(refuse(body, batch3)).toBe('emails[3].from: is required');
  });

  it('refuses a body that is not an object', () => {
    expect(refuse([base()])).toBe('body: must be an object');
    expect(refuse('x', batch3)).toBe('emails[3]: must be an object');
    expect(refuse(null)).toBe('body: must be an object');
  });

  it('refuses wrong types', () => {
    expect(refuse(withFields({ subject: 42 }))).toBe('subject: must be a string');
    expect(refuse(withFields({ html: 1 }))).toBe('html: must be a string');
    expect(refuse(withFields({ to: { a: 1 } }))).toBe(
      'to: must be an email address or an array of email addresses',
    );
    expect(refuse(withFields({ cc: ['a@example.com', 5] }))).toBe('cc[1]: must be a string');
  });
});

describe('validateEmail: content', () => {
  const noContent = 'one of html, text or template is required';

  it('refuses an email with no html, no text and no template, naming the fields', () => {
    const body = base();
    delete body.html;
    expect(refuse(body)).toBe(`body: ${noContent}`);
    expect(refuse(body, batch3)).toBe(`emails[3]: ${noContent}`);
    expect(refuse({ ...body, html: null, text: null })).toBe(`body: ${noContent}`);
    expect(refuse({ ...body, html: '' })).toBe(`body: ${noContent}`);
  });

  it('does not count text "" alone as content: it only turns off the text generated from html', () => {
    const body = base();
    delete body.html;
    expect(refuse({ ...body, text: '' })).toBe(
      `body: ${noContent} (text "" only turns off the text part generated from html)`,
    );
    expect(refuse({ ...body, html: '', text: '' })).toMatch(
      /^body: one of html, text or template is required/,
    );
  });

  it('accepts html alone, text alone, html with text "" and a template alone', () => {
    const body = base();
    delete body.html;
    expect(accept({ ...body, html: '<p>x</p>' }).html).toBe('<p>x</p>');
    expect(accept({ ...body, text: 'x' }).text).toBe('x');
    expect(accept({ ...body, html: '', text: 'x' }).text).toBe('x');
    expect(accept({ ...body, html: '<p>x</p>', text: '' }).text).toBe('');
    expect(accept({ to: 'jane@example.com', template: { id: 'welcome' } }).template?.id).toBe('welcome');
  });

  it('reports a broken field before the missing content', () => {
    expect(refuse({ from: 'a@example.com', to: 'jane@example.com', subject: 'S', html: 1 })).toBe(
      'html: must be a string',
    );
    expect(refuse({ to: 'jane@example.com', subject: 'S' })).toBe('from: is required');
  });
});

describe('validateEmail: internationalised addresses', () => {
  it('accepts IDN domains and UTF-8 local parts in every address field, keeping them as sent', () => {
    const email = accept(
      withFields({
        from: 'Bücherei <josé@bücher.example>',
        to: ['user@bücher.example', 'josé@example.com'],
        cc: '用户@例子.广告',
        reply_to: 'ayuda@ejemplo.españa',
      }),
      batch3,
    );
    expect(email.from).toBe('Bücherei <josé@bücher.example>');
    expect(email.to).toEqual(['user@bücher.example', 'josé@example.com']);
    expect(email.cc).toEqual(['用户@例子.广告']);
    expect(email.reply_to).toEqual(['ayuda@ejemplo.españa']);
  });

  it('refuses an IDN domain that is not valid IDNA, naming the element', () => {
    expect(refuse(withFields({ to: ['user@bücher.example', 'user@bü-.example'] }), batch3)).toBe(
      'emails[3].to[1]: invalid address (invalid domain)',
    );
  });
});

describe('validateEmail: recipients', () => {
  it(`accepts ${LIMITS.recipientsInTo} recipients in to and refuses ${LIMITS.recipientsInTo + 1}`, () => {
    expect(accept(withFields({ to: addresses(50) })).to).toHaveLength(50);
    expect(refuse(withFields({ to: addresses(51) }), batch3)).toBe('emails[3].to: at most 50 recipients');
  });

  it('refuses an empty to list', () => {
    expect(refuse(withFields({ to: [] }))).toBe('to: must contain at least 1 recipient');
  });

  it('names the bad element and the reason', () => {
    expect(refuse(withFields({ to: ['a@example.com', 'a@example.com,b@example.com'] }))).toBe(
      'to[1]: invalid address (more than one @ (one address per entry))',
    );
    expect(refuse(withFields({ from: 'not an address' }))).toMatch(/^from: invalid address/);
    expect(refuse(withFields({ reply_to: '<a@evil.test> x' }))).toBe(
      'reply_to: invalid address (unexpected text after ">")',
    );
  });

  it('refuses <address> without a display name in every address field, naming the element', () => {
    const why =
      'invalid address (angle brackets without a display name: send the bare address or Display Name <address>)';
    expect(refuse(withFields({ to: ['<a@evil.test>'] }), batch3)).toBe(`emails[3].to[0]: ${why}`);
    expect(refuse(withFields({ to: '<a@evil.test>' }))).toBe(`to: ${why}`);
    expect(refuse(withFields({ cc: ['c@example.com', '"" <a@evil.test>'] }))).toBe(`cc[1]: ${why}`);
    expect(refuse(withFields({ bcc: ['\u200b<a@evil.test>'] }))).toBe(`bcc[0]: ${why}`);
    expect(refuse(withFields({ reply_to: ' <a@evil.test> ' }))).toBe(`reply_to: ${why}`);
    expect(refuse(withFields({ from: '<hello@acme.example>' }))).toBe(`from: ${why}`);
  });

  it('keeps the validated address as the only address in what it returns', () => {
    const email = accept(withFields({ to: ['"a@good.test" <b@evil.test>', ' Jane <j@example.com> '] }));
    // The display name may look like an address; the recipient is the bracketed one.
    expect(email.to).toEqual(['"a@good.test" <b@evil.test>', 'Jane <j@example.com>']);
  });
});

describe('validateEmail: header injection', () => {
  it.each([
    ['subject', { subject: 'Hi\r\nBcc: x@evil.test' }, 'subject'],
    ['subject LF', { subject: 'Hi\nthere' }, 'subject'],
    ['subject NUL', { subject: 'Hi\u0000' }, 'subject'],
    ['subject U+2028', { subject: 'Hi\u2028there' }, 'subject'],
    ['subject U+2029', { subject: 'Hi\u2029there' }, 'subject'],
    ['display name', { from: 'Acme\r\nBcc: x@evil.test <a@acme.example>' }, 'from'],
    ['quoted display name', { to: ['"Jane\nDoe" <j@example.com>'] }, 'to[0]'],
    ['header value', { headers: { 'X-A': 'v\r\nBcc: x@evil.test' } }, 'headers["X-A"]'],
    ['header name', { headers: { 'X-A\r\nBcc': 'v' } }, 'headers["X-A\\r\\nBcc"]'],
    [
      'attachment filename',
      { attachments: [{ content: 'aGk=', filename: 'a\r\n.txt' }] },
      'attachments[0].filename',
    ],
    [
      'attachment content type',
      { attachments: [{ content: 'aGk=', content_type: 'text/plain\n' }] },
      'attachments[0].content_type',
    ],
    [
      'attachment content id',
      { attachments: [{ content: 'aGk=', content_id: 'x\u0000' }] },
      'attachments[0].content_id',
    ],
  ])('refuses CR/LF/NUL/U+2028 in %s', (_label, fields, path) => {
    expect(refuse(withFields(fields)).startsWith(`${path}: `)).toBe(true);
  });

  it('allows a TAB in the subject and newlines in html/text', () => {
    const email = accept(withFields({ subject: 'a\tb', text: 'line 1\r\nline 2' }));
    expect(email.subject).toBe('a\tb');
  });
});

describe('validateEmail: headers', () => {
  it.each([
    'From',
    'to',
    'CC',
    'bcc',
    'Subject',
    'Reply-To',
    'Message-ID',
    'date',
    'MIME-Version',
    'content-type',
    'Content-Transfer-Encoding',
    'Return-Path', // the envelope's MAIL FROM is Petrel's (VERP): a client's would claim another bounce address
    'return-path',
  ])('refuses the Petrel-owned header %s', (name) => {
    const path = /^\w+$/.test(name) ? `headers.${name}` : `headers["${name}"]`;
    expect(refuse(withFields({ headers: { [name]: 'x' } }))).toBe(
      `${path}: is set by Petrel from the email fields and cannot be a custom header`,
    );
  });

  it('checks header names and value types', () => {
    expect(refuse(withFields({ headers: { 'X A': 'v' } }))).toMatch(
      /header name may contain only printable ASCII/,
    );
    expect(refuse(withFields({ headers: { 'X:A': 'v' } }))).toMatch(/header name/);
    expect(refuse(withFields({ headers: { '': 'v' } }))).toMatch(/header name/);
    expect(refuse(withFields({ headers: { X_Num: 1 } }))).toBe('headers.X_Num: must be a string');
    expect(refuse(withFields({ headers: ['X-A: b'] }))).toBe('headers: must be an object');
    expect(accept(withFields({ headers: { '!#$%&*+-.^_`|~09AZaz': 'ok' } })).headers).toHaveProperty(
      '!#$%&*+-.^_`|~09AZaz',
    );
  });
});

describe('validateEmail: tags', () => {
  const tag = (name: string, value = 'v') => ({ tags: [{ name, value }] });

  it(`accepts ${LIMITS.tagNameLength}-character tags and refuses ${LIMITS.tagNameLength + 1}`, () => {
    expect(accept(withFields(tag('n'.repeat(256), 'v'.repeat(256)))).tags[0]?.name).toHaveLength(256);
    expect(refuse(withFields(tag('n'.repeat(257))), batch3)).toBe(
      'emails[3].tags[0].name: at most 256 characters',
    );
    expect(refuse(withFields(tag('n', 'v'.repeat(257))))).toBe('tags[0].value: at most 256 characters');
  });

  it('refuses characters outside a-z A-Z 0-9 _ -', () => {
    expect(
      refuse(
        withFields({
          tags: [
            { name: 'ok', value: 'ok' },
            { name: 'a b', value: 'v' },
          ],
        }),
        batch3,
      ),
    ).toBe('emails[3].tags[1].name: only a-z A-Z 0-9 _ - allowed');
    expect(refuse(withFields(tag('n', 'v.w')))).toBe('tags[0].value: only a-z A-Z 0-9 _ - allowed');
    expect(refuse(withFields(tag('n', 'x\r\ny')))).toBe('tags[0].value: only a-z A-Z 0-9 _ - allowed');
  });

  it('requires name and value, refuses other keys and non-arrays', () => {
    expect(refuse(withFields({ tags: [{ name: 'n' }] }))).toBe('tags[0].value: is required');
    expect(refuse(withFields(tag('')))).toBe('tags[0].name: is required');
    expect(refuse(withFields({ tags: [{ name: 'n', value: 1 }] }))).toBe('tags[0].value: must be a string');
    expect(refuse(withFields({ tags: [{ name: 'n', value: 'v', x: 1 }] }))).toBe(
      'tags[0]: unknown field `x`',
    );
    expect(refuse(withFields({ tags: { name: 'n', value: 'v' } }))).toBe('tags: must be an array');
  });
});

describe('validateEmail: template', () => {
  const tpl = (template: unknown, extra: Record<string, unknown> = {}) => ({
    to: 'jane@example.com',
    template,
    ...extra,
  });

  it('lets the template supply from and subject', () => {
    const email = accept(tpl({ id: 'welcome', variables: { NAME: 'Jane', COUNT: 3 } }));
    expect(email.from).toBe('');
    expect(email.subject).toBe('');
    expect(email.template).toEqual({ id: 'welcome', variables: { NAME: 'Jane', COUNT: 3 } });
    expect('html' in email).toBe(false);
    expect(accept(tpl({ id: 'welcome' })).template?.variables).toEqual({});
    expect(accept(tpl({ id: 'welcome' }, { from: 'a@acme.example', subject: 'S' })).subject).toBe('S');
  });

  it('still requires to and the template id', () => {
    expect(refuse({ template: { id: 'welcome' } })).toBe('to: is required');
    expect(refuse(tpl({}))).toBe('template.id: is required');
    expect(refuse(tpl({ id: '' }))).toBe('template.id: is required');
    expect(refuse(tpl({ id: 7 }))).toBe('template.id: must be a non-empty string of at most 256 characters');
    expect(refuse(tpl('welcome'))).toBe('template: must be an object');
    expect(refuse(tpl({ id: 'w', vars: {} }))).toBe('template: unknown field `vars`');
  });

  it.each([{ html: '<p>x</p>' }, { text: 'x' }, { text: '' }, { react: { type: 'div' } }, { react: null }])(
    'refuses template combined with %j (template message wins over react)',
    (extra) => {
      expect(refuse(tpl({ id: 'welcome' }, extra), { nowMs, context: 'batch', index: 1 })).toBe(
        'emails[1].template: cannot be combined with html, text or react',
      );
    },
  );

  it(`accepts a ${LIMITS.variableKeyLength}-character key and refuses ${LIMITS.variableKeyLength + 1}`, () => {
    const k50 = 'K'.repeat(50);
    expect(accept(tpl({ id: 't', variables: { [k50]: 'v' } })).template?.variables).toHaveProperty(k50);
    expect(refuse(tpl({ id: 't', variables: { ['K'.repeat(51)]: 'v' } }))).toBe(
      `template.variables.${'K'.repeat(51)}: variable name is longer than 50 characters`,
    );
  });

  it('refuses keys outside ASCII letters, digits and underscore', () => {
    expect(refuse(tpl({ id: 't', variables: { 'first-name': 'v' } }))).toBe(
      'template.variables["first-name"]: variable name may contain only ASCII letters, digits and underscore',
    );
    expect(refuse(tpl({ id: 't', variables: { '': 'v' } }))).toMatch(/variable name may contain only/);
  });

  it.each([...RESERVED_VARIABLES])('refuses the reserved key %s', (key) => {
    expect(refuse(tpl({ id: 't', variables: { [key]: 'v' } }))).toBe(
      `template.variables.${key}: is a reserved variable name`,
    );
  });

  it(`accepts a ${LIMITS.variableStringLength}-character string value and refuses ${LIMITS.variableStringLength + 1}`, () => {
    expect(accept(tpl({ id: 't', variables: { V: 'x'.repeat(2000) } })).template?.variables.V).toHaveLength(
      2000,
    );
    expect(accept(tpl({ id: 't', variables: { V: '😀'.repeat(2000) } })).template?.variables.V).toHaveLength(
      4000,
    );
    expect(refuse(tpl({ id: 't', variables: { V: 'x'.repeat(2001) } }))).toBe(
      'template.variables.V: at most 2000 characters',
    );
    expect(accept(tpl({ id: 't', variables: { V: 'line\r\nbreak' } })).template?.variables.V).toBe(
      'line\r\nbreak',
    );
  });

  it('accepts numbers up to ±(2^53 − 1) and refuses 2^53', () => {
    const max = Number.MAX_SAFE_INTEGER;
    expect(accept(tpl({ id: 't', variables: { A: max, B: -max, C: 9.99 } })).template?.variables).toEqual({
      A: max,
      B: -max,
      C: 9.99,
    });
    expect(refuse(tpl({ id: 't', variables: { A: 2 ** 53 } }))).toBe(
      'template.variables.A: must be a number between -(2^53 - 1) and 2^53 - 1',
    );
    expect(refuse(tpl({ id: 't', variables: { A: -(2 ** 53) } }))).toMatch(/must be a number between/);
    expect(refuse(tpl({ id: 't', variables: { A: Number.NaN } }))).toMatch(/must be a number between/);
  });

  it.each([true, null, { a: 1 }, ['a']])('refuses the variable value %j', (v) => {
    expect(refuse(tpl({ id: 't', variables: { A: v } }))).toBe(
      'template.variables.A: must be a string or a number',
    );
  });

  it(`accepts ${LIMITS.variablesPerTemplate} variables and refuses ${LIMITS.variablesPerTemplate + 1}`, () => {
    expect(
      Object.keys(accept(tpl({ id: 't', variables: variables(50) })).template?.variables ?? {}),
    ).toHaveLength(50);
    expect(refuse(tpl({ id: 't', variables: variables(51) }))).toBe(
      'template.variables: at most 50 variables',
    );
  });

  it('keeps __proto__-named variables as data', () => {
    const variablesJson = JSON.parse('{"__proto__":"x","constructor":"y"}') as unknown;
    const email = accept(tpl({ id: 't', variables: variablesJson }));
    expect(Object.keys(email.template?.variables ?? {})).toEqual(['__proto__', 'constructor']);
  });
});

describe('validateEmail: react, topic_id, unknown fields', () => {
  it('refuses react with a clear message', () => {
    expect(refuse(withFields({ react: { type: 'Email' } }))).toBe(
      'react: is not accepted on the wire: the SDK renders react to html client-side; send the rendered html instead',
    );
  });

  it('checks topic_id shape', () => {
    expect(accept(withFields({ topic_id: 't'.repeat(256) })).topic_id).toHaveLength(256);
    expect(refuse(withFields({ topic_id: 't'.repeat(257) }))).toBe(
      'topic_id: must be a non-empty string of at most 256 characters',
    );
    expect(refuse(withFields({ topic_id: '' }))).toMatch(/^topic_id: /);
    expect(refuse(withFields({ topic_id: 5 }))).toMatch(/^topic_id: /);
  });

  it('names unknown fields, with a hint for camelCase slips', () => {
    expect(refuse(withFields({ replyTo: 'a@example.com' }))).toBe(
      'body: unknown field `replyTo` (did you mean `reply_to`?)',
    );
    expect(refuse(withFields({ foo: 1, bar: 2 }), batch3)).toBe('emails[3]: unknown fields `foo`, `bar`');
    const many = Object.fromEntries(Array.from({ length: 8 }, (_, i) => [`f${i}`, i]));
    expect(refuse(withFields(many))).toBe('body: unknown fields `f0`, `f1`, `f2`, `f3`, `f4` and 3 more');
    expect(refuse(withFields({ ['x'.repeat(500)]: 1 })).length).toBeLessThan(120);
  });
});

describe('validateEmail: batch-only refusals', () => {
  it.each([
    ['attachments', [{ content: 'aGk=' }]],
    ['scheduled_at', 'in 1 hour'],
  ])('refuses %s in batch, naming the field', (field, value) => {
    expect(refuse(withFields({ [field]: value }), batch3)).toBe(`emails[3].${field}: not supported in batch`);
    expect(accept(withFields({ [field]: value }))[field as 'attachments']).toBeDefined();
  });
});

describe('validateEmail: scheduled_at (single)', () => {
  it('resolves natural language and ISO against now', () => {
    expect(accept(withFields({ scheduled_at: 'in 1 hour' })).scheduled_at).toBe('2026-11-21T11:00:00.000Z');
    expect(accept(withFields({ scheduled_at: '2026-11-22T09:00:00+02:00' })).scheduled_at).toBe(
      '2026-11-22T07:00:00.000Z',
    );
  });

  it('names the field in the error', () => {
    expect(refuse(withFields({ scheduled_at: 'in 31 days' }))).toBe(
      'scheduled_at: must be at most 30 days in the future',
    );
    expect(refuse(withFields({ scheduled_at: 12 }))).toBe('scheduled_at: must be a string');
  });
});
