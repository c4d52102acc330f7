/**
 * Wire schemas of the broadcast endpoints (https://resend.com/docs/api-reference/broadcasts):
 * POST /broadcasts, PATCH /broadcasts/:id, POST /broadcasts/:id/send. They check shapes and the
 * rules of one field (an address a send would accept, a header-safe subject); the rules that
 * need stored state or the clock (the segment and topic exist, `scheduled_at` lies ahead, only
 * a draft changes) are the use-cases'. Unknown keys are dropped, as Resend does.
 */
import { z } from 'zod';
import { REQUIRED_RULE } from '@petrel/contracts';
import { optionalList, requiredAddress, requiredHeaderText, topicId } from '../validation/fields.js';

/** Policy limits of a broadcast's own fields (Resend documents none but the copy's 70 characters). */
export const BROADCAST_LIMITS = {
  /** A duplicate's name is truncated to this (Resend's duplicate endpoint). */
  duplicateName: 70,
  name: 256,
  previewText: 1_000,
  /** Longest segment or topic id accepted (ids are UUIDs; this only bounds what is echoed). */
  id: 256,
} as const;

export const BROADCAST_MESSAGES = {
  noContent: 'one of html or text is required',
  segmentConflict: 'must name the same segment as audience_id when both are given',
  scheduledWithoutSend: 'can only be used with send: true',
} as const;

const idRef = z
  .string('must be a string')
  .min(1, 'must not be empty')
  .max(BROADCAST_LIMITS.id, `has at most ${BROADCAST_LIMITS.id} characters`);

const name = z
  .string('must be a string or null')
  .max(BROADCAST_LIMITS.name, `has at most ${BROADCAST_LIMITS.name} characters`);

const previewText = z
  .string('must be a string or null')
  .max(BROADCAST_LIMITS.previewText, `has at most ${BROADCAST_LIMITS.previewText} characters`);

const body = z.string('must be a string or null');

/** The fields POST and PATCH share (PATCH: all optional). */
const contentFields = {
  segment_id: idRef.optional(),
  /** Deprecated in Resend's OpenAPI, still accepted: the segment (audience) to send to. */
  audience_id: idRef.optional(),
  name: name.nullish(),
  reply_to: optionalList,
  preview_text: previewText.nullish(),
  html: body.nullish(),
  text: body.nullish(),
  topic_id: topicId,
};

const nonEmpty = (s: string | null | undefined): boolean => typeof s === 'string' && s !== '';

/** segment_id or audience_id: one is enough, both must agree. */
function checkSegment(
  input: { segment_id?: string | undefined; audience_id?: string | undefined },
  ctx: z.RefinementCtx,
  required: boolean,
): void {
  const { segment_id: segment, audience_id: audience } = input;
  if (segment === undefined && audience === undefined) {
    if (required) ctx.addIssue({ code: 'custom', path: ['segment_id'], message: REQUIRED_RULE });
  } else if (
    segment !== undefined &&
    audience !== undefined &&
    segment.toLowerCase() !== audience.toLowerCase()
  ) {
    ctx.addIssue({ code: 'custom', path: ['segment_id'], message: BROADCAST_MESSAGES.segmentConflict });
  }
}

/** POST /broadcasts. */
export const createBroadcastSchema = z
  .object({
    ...contentFields,
    from: requiredAddress,
    subject: requiredHeaderText,
    send: z.boolean('must be a boolean').optional(),
    /** ISO 8601 or natural language ("in 1 hour"); resolved against the clock by the use-case. */
    scheduled_at: z.string('must be a string').nullish(),
  })
  .superRefine((input, ctx) => {
    checkSegment(input, ctx, true);
    if (!nonEmpty(input.html) && !nonEmpty(input.text))
      ctx.addIssue({ code: 'custom', path: [], message: BROADCAST_MESSAGES.noContent });
    if (input.scheduled_at !== undefined && input.scheduled_at !== null && input.send !== true)
      ctx.addIssue({
        code: 'custom',
        path: ['scheduled_at'],
        message: BROADCAST_MESSAGES.scheduledWithoutSend,
      });
  });
export type CreateBroadcastInput = z.infer<typeof createBroadcastSchema>;

/**
 * PATCH /broadcasts/:id: every field optional; `null` clears an optional one (from, subject and
 * the segment cannot be cleared). Whether html or text is left is checked on the merged draft.
 */
export const updateBroadcastSchema = z
  .object({
    ...contentFields,
    from: requiredAddress.optional(),
    subject: requiredHeaderText.optional(),
  })
  .superRefine((input, ctx) => checkSegment(input, ctx, false));
export type UpdateBroadcastInput = z.infer<typeof updateBroadcastSchema>;

/** POST /broadcasts/:id/send: now, or at `scheduled_at`. The SDK sends `{}` when not scheduling. */
export const sendBroadcastSchema = z.object({ scheduled_at: z.string('must be a string').nullish() });
export type SendBroadcastInput = z.infer<typeof sendBroadcastSchema>;

/** The segment a request names: segment_id, else the deprecated audience_id. */
export const requestedSegment = (input: {
  segment_id?: string | undefined;
  audience_id?: string | undefined;
}): { id: string; field: 'segment_id' | 'audience_id' } | undefined =>
  input.segment_id !== undefined
    ? { id: input.segment_id, field: 'segment_id' }
    : input.audience_id !== undefined
      ? { id: input.audience_id, field: 'audience_id' }
      : undefined;
