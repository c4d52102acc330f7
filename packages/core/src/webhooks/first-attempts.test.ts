/**
 * The first attempts' rules as pure logic: only an endpoint that still takes deliveries gets a
 * direct attempt, and a stream entry is settled exactly once — acknowledged when every ready
 * delivery of its event went (attempted and recorded, or queued), given up when one did not, at
 * once when it has none.
 */
import { describe, expect, it } from 'vitest';
import { mayAttemptDirectly, newWebhookEndpoint, tallyStreamEntries } from './index.js';

const endpoint = newWebhookEndpoint({
  id: 'w1',
  endpoint: 'https://x.test/hook',
  events: ['email.sent'],
  created_at: '2026-01-01T00:00:00.000Z',
  secret: 'whsec_a2V5',
});
const entry = (entryId: string, eventId: string | null) => ({
  entryId,
  event: eventId === null ? null : { id: eventId },
});
const ready = (eventId: string) => ({ entry: { id: eventId } });

function tally(entries: ReturnType<typeof entry>[], deliveries: ReturnType<typeof ready>[]) {
  const settled: [string, boolean][] = [];
  const finish = tallyStreamEntries(entries, deliveries, (id, acked) => settled.push([id, acked]));
  return { settled, finish };
}

describe('mayAttemptDirectly', () => {
  it('allows an enabled endpoint, not a disabled or a deleted one', () => {
    expect(mayAttemptDirectly(endpoint)).toBe(true);
    expect(mayAttemptDirectly({ ...endpoint, status: 'disabled' })).toBe(false);
    expect(mayAttemptDirectly(undefined)).toBe(false);
  });
});

describe('tallyStreamEntries', () => {
  it('acknowledges at once the entries with no ready delivery (unreadable, or taken by no endpoint)', () => {
    const { settled } = tally(
      [entry('1-0', null), entry('2-0', 'ev_a'), entry('3-0', 'ev_b')],
      [ready('ev_b')],
    );
    expect(settled).toEqual([
      ['1-0', true],
      ['2-0', true],
    ]);
  });

  it.each([
    { first: true, acked: true },
    { first: false, acked: false },
  ])(
    'settles an entry once every delivery of its event is done: first ok=$first → acked=$acked',
    ({ first, acked }) => {
      const { settled, finish } = tally([entry('1-0', 'ev_a')], [ready('ev_a'), ready('ev_a')]);
      finish('ev_a', first);
      expect(settled).toEqual([]);
      // a delivery neither recorded nor queued gives the entry up, whatever the others did
      finish('ev_a', true);
      expect(settled).toEqual([['1-0', acked]]);
    },
  );

  it('settles every entry that carries the same event together', () => {
    const { settled, finish } = tally(
      [entry('1-0', 'ev_a'), entry('2-0', 'ev_b'), entry('3-0', 'ev_a')],
      [ready('ev_a'), ready('ev_b')],
    );
    finish('ev_b', true);
    expect(settled).toEqual([['2-0', true]]);
    finish('ev_a', true);
    expect(settled).toEqual([
      ['2-0', true],
      ['1-0', true],
      ['3-0', true],
    ]);
  });
});
