import { describe, expect, it } from 'vitest';
import { bind, withoutEmpty } from './form.js';

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

describe('withoutEmpty', () => {
  it('leaves out the optional keys that are empty, keeps the others and every required key', () => {
    const form = { email: '', first_name: 'Ann', last_name: '' };
    expect(withoutEmpty(form, ['first_name', 'last_name'])).toEqual({ email: '', first_name: 'Ann' });
    expect(JSON.stringify(withoutEmpty(form, ['last_name']))).toBe('{"email":"","first_name":"Ann"}');
    expect(form).toEqual({ email: '', first_name: 'Ann', last_name: '' });
  });
});
