/**
 * Small zod building blocks shared by the send-request schemas: the error maps that say
 * `is required` for an absent value, the header-safety refinement, and the raw-issue helper the
 * custom checks use (for the maps whose keys are user data: headers and template variables).
 */
import { HEADER_UNSAFE } from '@petrel/contracts';
import { z } from 'zod';
import { MSG } from './rules.js';

export const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** `null` counts as absent for optional fields (clients that serialise unset values as null). */
export const given = (value: unknown): boolean => value !== undefined && value !== null;

/** Error map: an absent value (undefined or null) is `is required`, any other one breaks `rule`. */
export const requiredOr =
  (rule: string) =>
  (issue: { input?: unknown }): string =>
    given(issue.input) ? rule : MSG.required;

/** Refinement for strings that end up in a header line. */
export const headerSafe = (value: string): boolean => !HEADER_UNSAFE.test(value);

/**
 * Records one broken rule from a custom check. `continue: true` lets the remaining checks run,
 * as zod's own refinements do; the first issue is the one reported.
 */
export function addIssue(payload: z.core.ParsePayload, path: PropertyKey[], message: string): void {
  payload.issues.push({ code: 'custom', message, input: payload.value, path, continue: true });
}

/**
 * A string whose rules are one function returning the broken rule, or undefined. One check per
 * value, rather than a chain of `.min().max().regex()`, keeps the per-value cost of the ingest
 * path low (bench/validation.mjs).
 */
export function stringWith(
  rule: (value: string) => string | undefined,
  typeError: string | ((issue: { input?: unknown }) => string) = MSG.string,
) {
  return z.string({ error: typeError }).check((payload) => {
    const broken = rule(payload.value);
    if (broken !== undefined) addIssue(payload, [], broken);
  });
}

/**
 * A JSON object whose keys are user data (custom headers, template variables): each entry must
 * pass `entryRule`, the first one that does not is named by its key. A custom check rather than
 * `z.record`, because zod skips a `__proto__` key without validating it; here every key is data,
 * and the result is a null-prototype map. Absent or null is allowed (the caller's default).
 */
export function userKeyedMap<V>(
  entryRule: (key: string, value: unknown) => string | undefined,
  limit?: { maxKeys: number; rule: string },
) {
  return z
    .custom<Record<string, V>>(isRecord, { error: MSG.object, abort: true })
    .check((payload) => {
      const input = payload.value;
      const keys = Object.keys(input);
      if (limit !== undefined && keys.length > limit.maxKeys) return addIssue(payload, [], limit.rule);
      const out = Object.create(null) as Record<string, V>;
      for (const key of keys) {
        const rule = entryRule(key, input[key]);
        if (rule !== undefined) return addIssue(payload, [key], rule);
        out[key] = input[key] as V;
      }
      payload.value = out;
    })
    .nullish();
}
