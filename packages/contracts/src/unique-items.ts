import type { z } from 'zod';

/**
 * A zod check (for `.superRefine`) that the items of an array name each `field` value once: every
 * repeat gets an issue at its own `[index, field]`, its message naming the first one (`first`).
 */
export function uniqueItems<K extends string>(
  field: K,
  message: (value: string, first: number) => string,
): (items: readonly Record<K, string>[], ctx: z.RefinementCtx) => void {
  return (items, ctx) => {
    const first = new Map<string, number>();
    items.forEach((item, i) => {
      const seen = first.get(item[field]);
      if (seen === undefined) first.set(item[field], i);
      else ctx.addIssue({ code: 'custom', path: [i, field], message: message(item[field], seen) });
    });
  };
}
