import { describe, expect, it } from 'vitest';
import { PetrelError } from '@petrel/contracts';
import {
  getRequestLog,
  listRequestLogs,
  matchesRequestLogFilter,
  parseRequestLogFilter,
  requestLogCutoffMs,
  type RequestLog,
  type RequestLogReader,
  type RequestLogSummary,
} from './request-logs.js';
import { encodeLogId } from './log-id.js';

const summary = (over: Partial<RequestLogSummary>): RequestLogSummary => ({
  id: 'x',
  created_at: '2026-01-01T00:00:00.000Z',
  endpoint: '/emails',
  method: 'POST',
  response_status: 200,
  user_agent: null,
  ...over,
});

function refusal(fn: () => unknown): PetrelError {
  try {
    fn();
  } catch (err) {
    return err as PetrelError;
  }
  throw new Error('not refused');
}

describe('request log filters', () => {
  it('parse method, status code or class and endpoint prefix', () => {
    expect(parseRequestLogFilter({})).toEqual({});
    expect(parseRequestLogFilter({ method: 'post', status: '4xx', endpoint: '/emails/' })).toEqual({
      method: 'POST',
      status: { class: 4 },
      endpoint: '/emails',
    });
    expect(parseRequestLogFilter({ status: '422' })).toEqual({ status: { code: 422 } });
  });

  it('refuse a bad value with 422 naming the parameter and the rule', () => {
    for (const [query, field] of [
      [{ method: 'FETCH' }, 'method'],
      [{ status: '99' }, 'status'],
      [{ status: '6xx' }, 'status'],
      [{ status: ['200', '201'] }, 'status'],
      [{ endpoint: 'emails' }, 'endpoint'],
    ] as const) {
      const err = refusal(() => parseRequestLogFilter(query));
      expect(err).toBeInstanceOf(PetrelError);
      expect(err.toBody()).toMatchObject({ statusCode: 422, name: 'validation_error' });
      expect(err.message.startsWith(`${field}:`), err.message).toBe(true);
    }
  });

  it('match whole path segments, status classes and methods', () => {
    const f = parseRequestLogFilter({ endpoint: '/emails', status: '2xx', method: 'POST' });
    expect(matchesRequestLogFilter(summary({ endpoint: '/emails/batch' }), f)).toBe(true);
    expect(matchesRequestLogFilter(summary({ endpoint: '/emails' }), f)).toBe(true);
    expect(matchesRequestLogFilter(summary({ endpoint: '/emailsx' }), f)).toBe(false);
    expect(matchesRequestLogFilter(summary({ response_status: 422 }), f)).toBe(false);
    expect(matchesRequestLogFilter(summary({ method: 'GET' }), f)).toBe(false);
    expect(matchesRequestLogFilter(summary({ response_status: 422 }), { status: { code: 422 } })).toBe(true);
  });
});

describe('request log retention and look-ups', () => {
  const policy = { retentionMs: 7 * 86_400_000 };
  const now = Date.UTC(2026, 0, 10);

  it('shows nothing older than the retention', () => {
    expect(requestLogCutoffMs(now, policy)).toBe(Date.UTC(2026, 0, 3));
    expect(requestLogCutoffMs(1000, policy)).toBe(0);
  });

  it('asks the reader with the cutoff, refuses a cursor that is no log id, and 404s an unknown id', async () => {
    const calls: number[] = [];
    const log: RequestLog = { ...summary({}), request_body: null, response_body: null };
    const reader: RequestLogReader = {
      page: async (_t, _p, _f, cutoff) => {
        calls.push(cutoff);
        return { items: [], hasMore: false };
      },
      get: async (_t, id, cutoff) => {
        calls.push(cutoff);
        return id === log.id ? log : null;
      },
    };
    const deps = { reader, policy, clock: { now: () => now } };
    await listRequestLogs(deps, 't', { limit: 10 }, {});
    expect(calls).toEqual([Date.UTC(2026, 0, 3)]);
    await expect(listRequestLogs(deps, 't', { limit: 10, after: 'nope' }, {})).rejects.toMatchObject({
      message: 'after: must be the id of a log',
    });
    await expect(getRequestLog(deps, 't', 'not-a-log-id')).rejects.toMatchObject({ errorName: 'not_found' });
    log.id = encodeLogId('1767225600000-0', '0123456789a');
    await expect(getRequestLog(deps, 't', log.id)).resolves.toBe(log);
    await expect(
      getRequestLog(deps, 't', encodeLogId('1767225600000-1', '0123456789a')),
    ).rejects.toMatchObject({
      errorName: 'not_found',
    });
  });
});
