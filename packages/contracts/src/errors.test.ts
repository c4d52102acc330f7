import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { fieldMessage, formatIssue, formatIssuePath, formatIssues, unknownFieldsRule } from './errors.js';

const issuesOf = (schema: z.ZodType, value: unknown) => {
  const r = schema.safeParse(value);
  if (r.success) throw new Error('expected a refusal');
  return r.error.issues;
};

describe('formatIssuePath', () => {
  it('writes paths as the client wrote the JSON', () => {
    expect(formatIssuePath(['emails', 3, 'to', 1])).toBe('emails[3].to[1]');
    expect(formatIssuePath(['template', 'variables', 'NAME'])).toBe('template.variables.NAME');
    expect(formatIssuePath(['headers', 'X-A'])).toBe('headers["X-A"]');
    expect(formatIssuePath(['headers', 'X-A\r\nBcc'])).toBe('headers["X-A\\r\\nBcc"]');
    expect(formatIssuePath([])).toBe('');
  });

  it('cuts a long user-chosen key', () => {
    const path = formatIssuePath(['variables', 'K'.repeat(500)]);
    expect(path).toBe(`variables["${'K'.repeat(64)}…"]`);
  });
});

describe('fieldMessage', () => {
  it('names the body when the path is empty', () => {
    expect(fieldMessage([], 'must be an object')).toBe('body: must be an object');
    expect(fieldMessage(['emails', 0, 'topic_id'], 'not supported')).toBe(
      'emails[0].topic_id: not supported',
    );
  });
});

describe('unknownFieldsRule', () => {
  it('quotes the names, hints camelCase slips and bounds the list', () => {
    expect(unknownFieldsRule(['replyTo'])).toBe('unknown field `replyTo` (did you mean `reply_to`?)');
    expect(unknownFieldsRule(['a', 'b`c'])).toBe('unknown fields `a`, "b`c"');
    expect(unknownFieldsRule(['a', 'b', 'c', 'd', 'e', 'f', 'g'])).toBe(
      'unknown fields `a`, `b`, `c`, `d`, `e` and 2 more',
    );
  });
});

describe('formatIssue / formatIssues', () => {
  const list = z.union([z.string(), z.array(z.string())], 'must be a string or an array of strings');

  it('explains a failed union by the option whose type matched', () => {
    expect(formatIssue(issuesOf(z.object({ cc: list }), { cc: ['a', 5] })[0]!)).toBe(
      'cc[1]: Invalid input: expected string, received number',
    );
    expect(formatIssue(issuesOf(z.object({ cc: list }), { cc: 5 })[0]!)).toBe(
      'cc: must be a string or an array of strings',
    );
  });

  it('explains a bad record key by the key rule', () => {
    const headers = z.record(z.string().regex(/^[A-Z]+$/, 'name must be upper case'), z.string());
    expect(formatIssue(issuesOf(z.object({ headers }), { headers: { 'x-a': 'v' } })[0]!)).toBe(
      'headers["x-a"]: name must be upper case',
    );
  });

  it('renders unknown fields and prefixes a batch item', () => {
    const issue = issuesOf(z.strictObject({ to: z.string() }), { to: 'a', replyTo: 'b' })[0]!;
    expect(formatIssue(issue, { prefix: ['emails', 2] })).toBe(
      'emails[2]: unknown field `replyTo` (did you mean `reply_to`?)',
    );
  });

  it('says `is required` for a value absent from the input, when given the input', () => {
    const schema = z.object({ name: z.string('name must be a string'), tags: z.array(z.string()) });
    const body = { tags: ['a', 3] };
    expect(formatIssues(issuesOf(schema, body), { input: body })).toBe(
      'name: is required; tags[1]: Invalid input: expected string, received number',
    );
    expect(formatIssues(issuesOf(schema, body))).toMatch(/^name: name must be a string; /);
    expect(formatIssues(issuesOf(schema, body), { input: body, max: 1 })).toBe('name: is required');
  });
});
