import { describe, expect, it } from 'vitest';
import { parseTemplate } from './parse-template.js';
import { isPetrelSuppliedVariable, undeclaredVariables } from './undeclared-variables.js';

describe('undeclaredVariables', () => {
  it('lists names that are neither declared nor supplied by Petrel, once, in first-use order', () => {
    const parts = [
      parseTemplate('{{{ORDER}}} {{{FIRST_NAME|there}}}'),
      undefined,
      parseTemplate(
        '{{{PRICE}}} {{{contact.first_name}}} {{{RESEND_UNSUBSCRIBE_URL}}} {{{X}}} {{{ORDER}}} {{{foo.bar}}}',
      ),
    ];
    expect(undeclaredVariables(parts, [{ key: 'PRICE' }])).toEqual(['ORDER', 'X', 'foo.bar']);
    expect(undeclaredVariables(parts, [{ key: 'PRICE' }, { key: 'ORDER' }, { key: 'X' }])).toEqual([
      'foo.bar',
    ]);
  });

  it('is empty for a template without placeholders', () => {
    expect(undeclaredVariables([parseTemplate('hello')], [])).toEqual([]);
  });
});

describe('isPetrelSuppliedVariable', () => {
  it.each([
    ['contact.first_name', true],
    ['contact.plan', true],
    ['RESEND_UNSUBSCRIBE_URL', true],
    ['UNSUBSCRIBE_URL', true],
    ['EMAIL', true],
    ['FIRST_NAME', true],
    ['contact', false],
    ['this', false],
    ['this.x', false],
    ['email', false],
    ['PRODUCT', false],
  ])('%s → %s', (name, expected) => {
    expect(isPetrelSuppliedVariable(name)).toBe(expected);
  });
});
