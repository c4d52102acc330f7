import { describe, expect, it } from 'vitest';
import { EMAIL_STATUSES, RECORD_STATUSES } from '@petrel/contracts';
import { domainStatus, type StatusInput } from '../domains/domain-status.js';
import {
  canMove,
  DOMAIN_MACHINE,
  EMAIL_FINISHED_RANK,
  EMAIL_MACHINE,
  emailStatusRank,
  guardAllows,
  STATUS_MACHINES,
  statusMachine,
} from './index.js';

describe('status machines', () => {
  it('each table has a row for every status and names no unknown one', () => {
    const names = STATUS_MACHINES.map((m) => m.name);
    expect(new Set(names).size).toBe(names.length);
    for (const m of STATUS_MACHINES) {
      expect(Object.keys(m.transitions).sort(), m.name).toEqual([...m.statuses].sort());
      for (const to of Object.values<readonly string[]>(m.transitions))
        for (const s of to) expect(m.statuses, `${m.name} → ${s}`).toContain(s);
    }
  });

  it('a table naming a status its machine does not have is refused when declared', () => {
    expect(() =>
      statusMachine({
        name: 'lamp',
        statuses: ['on', 'off'],
        transitions: { on: ['off'], off: ['on', 'broken' as 'on'] },
        guards: {},
      }),
    ).toThrow('lamp off: unknown status broken');
    expect(() =>
      statusMachine({
        name: 'lamp',
        statuses: ['on', 'off'],
        transitions: { on: ['off'], off: ['on'] },
        guards: { switchable: ['on', 'dim' as 'on'] },
      }),
    ).toThrow('lamp guard switchable: unknown status dim');
  });

  it('an email moves only forward, and is finished from `sent` on', () => {
    for (const from of EMAIL_STATUSES)
      for (const to of EMAIL_STATUSES)
        expect(canMove(EMAIL_MACHINE, from, to), `${from} → ${to}`).toBe(
          emailStatusRank(to) > emailStatusRank(from),
        );
    expect(EMAIL_FINISHED_RANK).toBe(emailStatusRank('sent'));
    // the unfinished statuses are exactly the ranks below it
    expect(EMAIL_STATUSES.filter((s) => guardAllows(EMAIL_MACHINE.guards.unfinished, s))).toEqual(
      EMAIL_STATUSES.slice(0, EMAIL_FINISHED_RANK),
    );
  });

  it('guardAllows refuses a missing record', () => {
    expect(guardAllows(EMAIL_MACHINE.guards.cancellable, 'scheduled')).toBe(true);
    expect(guardAllows(EMAIL_MACHINE.guards.cancellable, undefined)).toBe(false);
    expect(guardAllows(EMAIL_MACHINE.guards.cancellable, null)).toBe(false);
  });

  it("a domain's derived status after a lookup is a move its table allows (never back to not_started)", () => {
    const checked = RECORD_STATUSES.filter((s) => s !== 'not_started');
    for (const dkim of checked)
      for (const spf of checked) {
        const records: StatusInput[] = [
          { record: 'DKIM', status: dkim },
          { record: 'SPF', status: spf },
        ];
        const after = domainStatus(records);
        for (const before of DOMAIN_MACHINE.statuses)
          expect(canMove(DOMAIN_MACHINE, before, after), `${before} → ${after}`).toBe(true);
      }
  });
});
