/** Form state helpers for the dashboard's controls (ui.tsx's Field, Select, TextArea). */

/**
 * A Field/Select/TextArea bound to one string key of a form's state object: its `value`, and an
 * `onValue` that sets that key on a copy of the form (`<Field {...bind(form, setForm, 'name')} />`).
 */
export function bind<F extends Record<K, string>, K extends keyof F>(
  form: F,
  setForm: (next: F) => void,
  key: K,
): { value: string; onValue: (v: string) => void } {
  return { value: form[key], onValue: (v) => setForm({ ...form, [key]: v }) };
}

/**
 * The form as a request body, its `optional` keys left out when empty: for the API an absent
 * field is "not set", while an empty string is a value (and often an invalid one).
 */
export function withoutEmpty<F extends Record<K, string>, K extends keyof F>(
  form: F,
  optional: readonly K[],
): Omit<F, K> & Partial<Pick<F, K>> {
  const body: Partial<F> = { ...form };
  for (const key of optional) if (!form[key]) delete body[key];
  return body as Omit<F, K> & Partial<Pick<F, K>>;
}
