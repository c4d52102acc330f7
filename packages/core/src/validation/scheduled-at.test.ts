import { describe, expect, it } from 'vitest';
import { parseScheduledAt } from './scheduled-at.js';

const nowMs = Date.parse('2026-11-21T10:30:00.000Z');
const iso = (input: string) => {
  const r = parseScheduledAt(input, nowMs);
  if (!r.ok) throw new Error(`expected ${JSON.stringify(input)} to parse: ${r.message}`);
  return r.iso;
};
const message = (input: string) => {
  const r = parseScheduledAt(input, nowMs);
  if (r.ok) throw new Error(`expected ${JSON.stringify(input)} to be refused, got ${r.iso}`);
  return r.message;
};

describe('parseScheduledAt', () => {
  it.each([
    // natural language, relative to now, in UTC
    ['in 1 hour', '2026-11-21T11:30:00.000Z'],
    ['in 1 min', '2026-11-21T10:31:00.000Z'],
    ['tomorrow at 9am', '2026-11-22T09:00:00.000Z'],
    ['  in 2 weeks ', '2026-12-05T10:30:00.000Z'],
    ['friday 9am PST', '2026-11-27T17:00:00.000Z'],
    // ISO 8601 (no offset means UTC)
    ['2026-11-22T10:00:00Z', '2026-11-22T10:00:00.000Z'],
    ['2026-11-22T10:00:00.123456Z', '2026-11-22T10:00:00.123Z'],
    ['2026-11-22T12:00:00+02:00', '2026-11-22T10:00:00.000Z'],
    ['2026-11-22T05:00-0500', '2026-11-22T10:00:00.000Z'],
    ['2026-11-22 10:00:00+00', '2026-11-22T10:00:00.000Z'],
    ['2026-11-22T10:00:00', '2026-11-22T10:00:00.000Z'],
    ['2026-11-22', '2026-11-22T00:00:00.000Z'],
  ])('reads %j as %s', (input, expected) => {
    expect(iso(input)).toBe(expected);
  });

  it('allows one minute of clock skew and refuses the past beyond it', () => {
    expect(iso('2026-11-21T10:29:00Z')).toBe('2026-11-21T10:29:00.000Z');
    expect(message('2026-11-21T10:28:59Z')).toBe('must be in the future');
    expect(message('yesterday')).toBe('must be in the future');
  });

  it('accepts exactly 30 days ahead and refuses one millisecond more', () => {
    expect(iso('2026-12-21T10:30:00.000Z')).toBe('2026-12-21T10:30:00.000Z');
    expect(message('2026-12-21T10:30:00.001Z')).toBe('must be at most 30 days in the future');
    expect(message('in 31 days')).toBe('must be at most 30 days in the future');
  });

  it.each([
    '2026-02-30T10:00:00Z',
    '2026-13-01',
    '2026-11-22T24:00:00Z',
    '2026-11-22T10:60:00Z',
    '2026-11-22T10:00:00+25:00',
    '2026-11-22T10:00:00Zjunk',
    'send it tomorrow please',
    'tomorrow 9am and monday 10am',
    'whenever',
  ])('refuses %j as unreadable', (input) => {
    expect(message(input)).toMatch(/^must be an ISO 8601 date-time or a natural-language time/);
  });

  it('refuses empty and overlong input', () => {
    expect(message('  ')).toBe('must not be empty');
    expect(message('in 1 hour'.padEnd(300, ' x'))).toBe('must be at most 256 characters');
  });
});
