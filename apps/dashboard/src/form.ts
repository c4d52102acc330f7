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
