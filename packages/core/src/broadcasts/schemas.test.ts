import { describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { formatIssues } from '@petrel/contracts';
import { createBroadcastSchema, sendBroadcastSchema, updateBroadcastSchema } from './schemas.js';

const message = (schema: z.ZodType, v: unknown): string | undefined => {
  const res = schema.safeParse(v);
  return res.success ? undefined : formatIssues(res.error.issues, { input: v });
};

const valid = { segment_id: 'seg', from: 'Acme <news@acme.test>', subject: 'News', html: '<p>Hi</p>' };

describe('createBroadcastSchema', () => {
  it('accepts the documented fields; reply_to as a string or an array', () => {
    const every = {
      ...valid,
      name: 'Nov',
      reply_to: 'r@acme.test',
      preview_text: 'Preview',
      topic_id: 'topic',
      send: true,
      scheduled_at: 'in 1 hour',
    };
    expect(createBroadcastSchema.parse({ ...every, unknown: 'dropped' })).toEqual(every);
    expect(createBroadcastSchema.parse({ ...valid, reply_to: ['a@x.test', 'b@x.test'] }).reply_to).toEqual([
      'a@x.test',
      'b@x.test',
    ]);
    const legacy = { ...valid, segment_id: undefined, audience_id: 'aud', text: 'Hi' };
    expect(createBroadcastSchema.parse(legacy).audience_id).toBe('aud');
  });

  it('names the field of each broken rule', () => {
    expect(message(createBroadcastSchema, { ...valid, segment_id: undefined })).toBe(
      'segment_id: is required',
    );
    expect(message(createBroadcastSchema, { ...valid, audience_id: 'other' })).toBe(
      'segment_id: must name the same segment as audience_id when both are given',
    );
    expect(message(createBroadcastSchema, { ...valid, from: undefined })).toBe('from: is required');
    expect(message(createBroadcastSchema, { ...valid, from: 'not an address' })).toMatch(
      /^from: invalid address/,
    );
    expect(message(createBroadcastSchema, { ...valid, subject: '' })).toBe('subject: is required');
    expect(message(createBroadcastSchema, { ...valid, subject: 'a\r\nBcc: x@y.z' })).toMatch(
      /^subject: must not contain line breaks/,
    );
    expect(message(createBroadcastSchema, { ...valid, html: undefined })).toBe(
      'body: one of html or text is required',
    );
    expect(message(createBroadcastSchema, { ...valid, html: '', text: '' })).toBe(
      'body: one of html or text is required',
    );
    expect(message(createBroadcastSchema, { ...valid, reply_to: ['ok@x.test', 'bad'] })).toMatch(
      /^reply_to\[1\]: invalid address/,
    );
    expect(message(createBroadcastSchema, { ...valid, send: 'yes' })).toBe('send: must be a boolean');
    expect(message(createBroadcastSchema, { ...valid, scheduled_at: 'in 1 hour' })).toBe(
      'scheduled_at: can only be used with send: true',
    );
    expect(message(createBroadcastSchema, { ...valid, send: false, scheduled_at: 'in 1 hour' })).toBe(
      'scheduled_at: can only be used with send: true',
    );
    expect(message(createBroadcastSchema, { ...valid, name: 'x'.repeat(257) })).toBe(
      'name: has at most 256 characters',
    );
    expect(message(createBroadcastSchema, { ...valid, topic_id: '' })).toMatch(
      /^topic_id: must be a non-empty/,
    );
  });
});

describe('updateBroadcastSchema', () => {
  it('takes any subset; null clears the optional fields', () => {
    expect(updateBroadcastSchema.parse({})).toEqual({});
    expect(updateBroadcastSchema.parse({ name: null, topic_id: null, reply_to: null, text: 'T' })).toEqual({
      name: null,
      topic_id: null,
      reply_to: null,
      text: 'T',
    });
  });

  it('refuses clearing from or subject, and a bad address', () => {
    expect(message(updateBroadcastSchema, { from: null })).toBe('from: is required');
    expect(message(updateBroadcastSchema, { subject: '' })).toBe('subject: is required');
    expect(message(updateBroadcastSchema, { from: 'nope' })).toMatch(/^from: invalid address/);
    expect(message(updateBroadcastSchema, { segment_id: 'a', audience_id: 'b' })).toMatch(
      /^segment_id: must name/,
    );
  });
});

describe('sendBroadcastSchema', () => {
  it('reads {} (the SDK sends it when not scheduling) and scheduled_at', () => {
    expect(sendBroadcastSchema.parse({})).toEqual({});
    expect(sendBroadcastSchema.parse({ scheduled_at: '2030-01-01T00:00:00Z' })).toEqual({
      scheduled_at: '2030-01-01T00:00:00Z',
    });
    expect(message(sendBroadcastSchema, { scheduled_at: 5 })).toBe('scheduled_at: must be a string');
  });
});
