import { describe, expect, it } from 'vitest';
import { bind } from './form.js';

describe('bind', () => {
  it("gives a control the key's value and sets that key on a copy of the form", () => {
    const form = { name: 'a', from: 'b' };
    const set: (typeof form)[] = [];
    const props = bind(form, (next) => set.push(next), 'name');
    expect(props.value).toBe('a');
    props.onValue('z');
    expect(set).toEqual([{ name: 'z', from: 'b' }]);
    expect(form).toEqual({ name: 'a', from: 'b' });
  });
});
