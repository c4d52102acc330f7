import { describe, expect, it } from 'vitest';
import { isRedisUnavailable, parseRedisUrl } from './redis.js';

describe('parseRedisUrl', () => {
  it('leaves a one-server URL to ioredis', () => {
    for (const url of [
      'redis://127.0.0.1:6379',
      'rediss://:pw@redis.example.com:6380/2',
      'redis://localhost',
    ])
      expect(parseRedisUrl(url)).toEqual({ kind: 'server', url });
  });

  it('reads the nodes of a cluster URL', () => {
    expect(parseRedisUrl('redis+cluster://10.0.0.1:7000,10.0.0.2:7001,redis-3.internal:7002')).toEqual({
      kind: 'cluster',
      nodes: [
        { host: '10.0.0.1', port: 7000 },
        { host: '10.0.0.2', port: 7001 },
        { host: 'redis-3.internal', port: 7002 },
      ],
      tls: false,
    });
    expect(parseRedisUrl('redis+cluster://[::1]:7000,[fd00::2]:7001/')).toMatchObject({
      nodes: [
        { host: '::1', port: 7000 },
        { host: 'fd00::2', port: 7001 },
      ],
    });
  });

  it('reads credentials (percent-decoded) and TLS', () => {
    expect(parseRedisUrl('rediss+cluster://app:p%40ss:word@node-1:6379')).toEqual({
      kind: 'cluster',
      nodes: [{ host: 'node-1', port: 6379 }],
      username: 'app',
      password: 'p@ss:word',
      tls: true,
    });
    expect(parseRedisUrl('redis+cluster://:secret@node-1:6379')).toMatchObject({ password: 'secret' });
    expect(parseRedisUrl('redis+cluster://:secret@node-1:6379')).not.toHaveProperty('username');
  });

  it('refuses a cluster URL it cannot read, without quoting the password', () => {
    for (const url of [
      'redis+cluster://node-1',
      'redis+cluster://node-1:0',
      'redis+cluster://node-1:7000,:7001',
      'redis+cluster://user:topsecret@node-1:x',
      'redis+cluster://',
    ]) {
      expect(() => parseRedisUrl(url)).toThrow(/Redis Cluster/);
      try {
        parseRedisUrl(url);
      } catch (err) {
        expect((err as Error).message).not.toContain('topsecret');
      }
    }
  });
});

describe('isRedisUnavailable', () => {
  it.each([
    'Connection is closed.',
    'Command timed out',
    'connect ECONNREFUSED 127.0.0.1:6379',
    "OOM command not allowed when used memory > 'maxmemory'.",
    'LOADING Redis is loading the dataset in memory',
    'CLUSTERDOWN The cluster is down',
    'CLUSTERDOWN Hash slot not served',
    'TRYAGAIN Multiple keys request during rehashing of slot',
    "READONLY You can't write against a read only replica.",
    'Failed to refresh slots cache.',
    'None of startup nodes is available',
    "Cluster isn't ready and enableOfflineQueue options is false",
    'Too many Cluster redirections. Last error: Error: Connection is closed.',
  ])('is true for "%s"', (message) => {
    expect(isRedisUnavailable(new Error(message))).toBe(true);
  });

  it('looks into an aborted transaction, and is false for errors of the command itself', () => {
    const execAbort = Object.assign(new Error('EXECABORT Transaction discarded'), {
      previousErrors: [new Error('CLUSTERDOWN The cluster is down')],
    });
    expect(isRedisUnavailable(execAbort)).toBe(true);
    for (const message of [
      "CROSSSLOT Keys in request don't hash to the same slot",
      'WRONGTYPE Operation against a key holding the wrong kind of value',
      "ERR unknown command 'FOO'",
    ])
      expect(isRedisUnavailable(new Error(message))).toBe(false);
    expect(isRedisUnavailable(undefined)).toBe(false);
  });
});
