import { describe, expect, it } from 'vitest';
import type { VNode } from 'preact';
import { bind, deleteColumn, type Action } from './ui.js';

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

describe('deleteColumn', () => {
  it("is an Actions column whose DeleteButton deletes the row's encoded path", () => {
    const action: Action = { busy: false, error: undefined, run: async () => true, clear: () => {} };
    const onDone = () => {};
    const col = deleteColumn<{ id: string }>('topics', action, onDone, 'Remove');
    expect(col.header).toBe('Actions');
    const cell = col.cell({ id: 'a/b' }) as VNode<Record<string, unknown>>;
    expect(cell.props).toMatchObject({ path: '/topics/a%2Fb', label: 'Remove', action, onDone });
    const plain = deleteColumn<{ id: string }>('contacts', action, onDone).cell({ id: 'c' }) as VNode<
      Record<string, unknown>
    >;
    expect(plain.props).toMatchObject({ path: '/contacts/c', label: undefined });
  });
});
