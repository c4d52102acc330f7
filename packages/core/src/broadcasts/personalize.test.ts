import { describe, expect, it } from 'vitest';
import type { ContactPropertyRecord } from '@petrel/contracts';
import {
  contactValues,
  personalize,
  placeholderFields,
  placeholderNeeds,
  renderPersonal,
  type PersonalContact,
} from './personalize.js';

const ada: PersonalContact = {
  email: 'ada@example.test',
  first_name: 'Ada',
  last_name: 'Lovelace',
  properties: { company: 'Analytical & Co', seats: 3 },
};
const nobody: PersonalContact = {
  email: 'x@example.test',
  first_name: null,
  last_name: null,
  properties: {},
};
const defs: ContactPropertyRecord[] = [
  { id: 'p1', key: 'company', type: 'string', fallback_value: 'your company', created_at: '' },
  { id: 'p2', key: 'seats', type: 'number', fallback_value: 1, created_at: '' },
  { id: 'p3', key: 'plan', type: 'string', fallback_value: null, created_at: '' },
];
const URL = 'https://petrel.test/unsubscribe/tok?a=1&b=2';

/** `content` personalized for `contact` with the property definitions and unsubscribe URL above. */
const fill = (content: Parameters<typeof personalize>[0], contact: PersonalContact) =>
  personalize(content, contact, defs, URL);

describe('personalize', () => {
  it('fills names, email, properties and the unsubscribe link', () => {
    const out = fill(
      {
        subject: 'Hi {{{contact.first_name|there}}}',
        html: '<p>{{{contact.first_name|there}}} {{{contact.last_name}}} of {{{contact.company}}} ({{{contact.seats}}} seats, {{{contact.email}}})</p><a href="{{{RESEND_UNSUBSCRIBE_URL}}}">x</a>',
        text: '{{{ contact.company }}} {{{UNSUBSCRIBE_URL}}}',
      },
      ada,
    );
    expect(out.subject).toBe('Hi Ada');
    expect(out.html).toBe(
      '<p>Ada Lovelace of Analytical &amp; Co (3 seats, ada@example.test)</p><a href="https://petrel.test/unsubscribe/tok?a=1&amp;b=2">x</a>',
    );
    expect(out.text).toBe(`Analytical & Co ${URL}`);
  });

  it('uses the placeholder fallback, then the property fallback, then nothing', () => {
    const out = fill(
      {
        subject: '{{{contact.first_name|friend}}}',
        text: '[{{{contact.first_name}}}] [{{{contact.company}}}] [{{{contact.company|ACME}}}] [{{{contact.seats}}}] [{{{contact.plan}}}] [{{{contact.nope|n/a}}}]',
      },
      nobody,
    );
    expect(out.subject).toBe('friend');
    expect(out.text).toBe('[] [your company] [ACME] [1] [] [n/a]');
  });

  it('escapes values in html only, and keeps the subject on one line', () => {
    const evil: PersonalContact = {
      ...nobody,
      first_name: '<b>"x"</b>',
      properties: { company: 'a\r\nBcc: y' },
    };
    const out = fill(
      {
        subject: '{{{contact.company}}}',
        html: '{{{contact.first_name}}}',
        text: '{{{contact.first_name}}}',
      },
      evil,
    );
    expect(out.html).toBe('&lt;b&gt;&quot;x&quot;&lt;/b&gt;');
    expect(out.text).toBe('<b>"x"</b>');
    expect(out.subject).not.toMatch(/[\r\n]/);
  });

  it('reads the older upper-case names and leaves unknown placeholders as written', () => {
    const out = personalize(
      { subject: '{{{FIRST_NAME|there}}} {{{LAST_NAME}}} {{{EMAIL}}} {{{SOMETHING}}} {{name}}' },
      ada,
      [],
      URL,
    );
    expect(out.subject).toBe('Ada Lovelace ada@example.test {{{SOMETHING}}} {{name}}');
  });

  it('leaves html and text absent when the source has none', () => {
    expect(fill({ subject: 's' }, ada)).toEqual({ subject: 's' });
  });
});

describe('placeholderNeeds', () => {
  it('says whether the contact and the property definitions must be read', () => {
    expect(placeholderNeeds(['<a href="{{{RESEND_UNSUBSCRIBE_URL}}}">', undefined])).toEqual({
      contact: false,
      properties: false,
    });
    expect(placeholderNeeds(['Hi {{{contact.first_name|there}}}', '{{{EMAIL}}}'])).toEqual({
      contact: true,
      properties: false,
    });
    expect(placeholderNeeds(['x', '{{{contact.company}}}'])).toEqual({ contact: true, properties: true });
  });
});

describe('contactValues and renderPersonal', () => {
  const content = {
    subject: 'Hi {{{contact.first_name|there}}} {{{RESEND_UNSUBSCRIBE_URL}}}',
    html: '<p>{{{contact.first_name|there}}} of {{{contact.company}}} ({{{contact.seats|?}}}, {{{contact.plan}}})</p><a href="{{{RESEND_UNSUBSCRIBE_URL}}}">x</a>',
    text: '{{{contact.company|ACME}}} {{{EMAIL}}} {{{UNSUBSCRIBE_URL}}}',
  };
  const fields = placeholderFields([content.subject, content.html, content.text]);

  it('keeps only the fields the content reads, and only the non-empty ones', () => {
    expect(contactValues(fields, ada, defs)).toEqual({
      first_name: 'Ada',
      properties: { company: 'Analytical & Co', seats: 3 },
    });
    // no value: the definition's fallback is kept instead (a definition without one: nothing)
    expect(contactValues(fields, nobody, defs)).toEqual({ fallbacks: { company: 'your company', seats: 1 } });
    expect(contactValues(fields, { ...nobody, first_name: '' }, [])).toEqual({});
    expect(
      contactValues(placeholderFields(['<p>Hello all</p>', '{{{RESEND_UNSUBSCRIBE_URL}}}']), ada, defs),
    ).toBeNull();
  });

  it('renders from the stored values exactly what the contact and definitions render', () => {
    for (const who of [ada, nobody, { ...ada, first_name: null, properties: { seats: 0 } }]) {
      const values = contactValues(fields, who, defs);
      // a round trip through the record (JSON) changes nothing
      const stored = JSON.parse(JSON.stringify(values)) as typeof values;
      expect(renderPersonal(content, who.email, stored, URL)).toEqual(fill(content, who));
    }
  });

  it('renders the fallbacks without values, and never a link in the subject', () => {
    const out = renderPersonal(content, 'x@example.test', null, URL);
    expect(out.subject).toBe('Hi there {{{RESEND_UNSUBSCRIBE_URL}}}');
    expect(out.html).toBe(
      '<p>there of  (?, )</p><a href="https://petrel.test/unsubscribe/tok?a=1&amp;b=2">x</a>',
    );
    expect(out.text).toBe(`ACME x@example.test ${URL}`);
  });

  it('leaves the link placeholders as written when no link is given', () => {
    expect(
      renderPersonal({ subject: 's', text: '{{{UNSUBSCRIBE_URL}}}' }, 'x@example.test', {}, null),
    ).toEqual({
      subject: 's',
      text: '{{{UNSUBSCRIBE_URL}}}',
    });
  });
});
