import { describe, expect, it } from 'vitest';
import {
  ConfigError,
  broadcastLaneYieldEnv,
  broadcastLaneYieldRule,
  httpServerEnv,
  inboxAgentEndpoint,
  inboxAgentEnv,
  isRedisUrl,
  loadConfig,
  metricsEnv,
  queueEnv,
  redisEnv,
} from './index.js';

const load = (env: Record<string, string>) => loadConfig({ ...redisEnv, ...queueEnv }, env);

function configError(env: Record<string, string>): string {
  try {
    load(env);
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    return (err as Error).message;
  }
  throw new Error('expected a ConfigError');
}

describe('REDIS_URL', () => {
  it.each([
    'redis://127.0.0.1:6379',
    'redis://localhost',
    'redis://:secret@redis.internal:6380/2',
    'rediss://user:secret@redis.example.com:6380',
    'redis+cluster://10.0.0.1:7000',
    'redis+cluster://10.0.0.1:7000,10.0.0.2:7001,redis-3.internal:7002',
    'redis+cluster://user:secret@10.0.0.1:7000,10.0.0.2:7000/',
    'rediss+cluster://:secret@node-1.example.com:6379,node-2.example.com:6379',
    'redis+cluster://[::1]:7000,[fd00::2]:7000',
  ])('accepts %s', (url) => {
    expect(isRedisUrl(url)).toBe(true);
    expect(load({ REDIS_URL: url }).REDIS_URL).toBe(url);
  });

  it.each([
    'http://127.0.0.1:6379',
    'localhost:6379',
    'redis://',
    'redis+cluster://',
    'redis+cluster://10.0.0.1',
    'redis+cluster://10.0.0.1:7000,',
    'redis+cluster://10.0.0.1:7000,10.0.0.2',
    'redis+cluster://10.0.0.1:7000/0',
    'redis+sentinel://10.0.0.1:26379',
  ])('refuses %s with a message naming the accepted forms', (url) => {
    expect(isRedisUrl(url)).toBe(false);
    const message = configError({ REDIS_URL: url });
    expect(message).toContain('REDIS_URL');
    expect(message).toContain('redis+cluster://host1:port,host2:port');
  });

  it('is optional (all-in-one starts an embedded server)', () => {
    expect(load({}).REDIS_URL).toBeUndefined();
  });
});

describe('REDIS_CLUSTER_NODES', () => {
  it('is another spelling of a cluster REDIS_URL', () => {
    const config = load({ REDIS_CLUSTER_NODES: '10.0.0.1:7000,10.0.0.2:7000' });
    expect(config.REDIS_URL).toBe('redis+cluster://10.0.0.1:7000,10.0.0.2:7000');
  });

  it('refuses a malformed list', () => {
    for (const nodes of ['10.0.0.1', '10.0.0.1:7000;10.0.0.2:7000', 'redis://10.0.0.1:7000', ''])
      expect(configError({ REDIS_CLUSTER_NODES: nodes })).toMatch(
        /REDIS_CLUSTER_NODES: must be host:port pairs/,
      );
  });

  it('refuses being set together with REDIS_URL', () => {
    expect(
      configError({ REDIS_URL: 'redis://127.0.0.1:6379', REDIS_CLUSTER_NODES: '10.0.0.1:7000' }),
    ).toMatch(/REDIS_CLUSTER_NODES: set REDIS_URL or REDIS_CLUSTER_NODES, not both/);
  });
});

describe('QUEUE_SHARDS', () => {
  it('defaults to one queue per lane and no previous layout', () => {
    const config = load({});
    expect(config.QUEUE_SHARDS).toBe(1);
    expect(config.QUEUE_SHARDS_PREVIOUS).toBeUndefined();
  });

  it('takes a shard count, and a previous one (a count or `unsharded`) while it changes', () => {
    expect(load({ QUEUE_SHARDS: '6', QUEUE_SHARDS_PREVIOUS: '3' })).toMatchObject({
      QUEUE_SHARDS: 6,
      QUEUE_SHARDS_PREVIOUS: 3,
    });
    expect(load({ QUEUE_SHARDS_PREVIOUS: 'unsharded' }).QUEUE_SHARDS_PREVIOUS).toBe('unsharded');
  });

  it('refuses counts outside 1..64', () => {
    for (const bad of ['0', '65', '1.5', 'x'])
      expect(configError({ QUEUE_SHARDS: bad })).toContain('QUEUE_SHARDS');
    expect(configError({ QUEUE_SHARDS_PREVIOUS: '0' })).toContain('QUEUE_SHARDS_PREVIOUS');
  });
});

describe('HTTP server timeouts', () => {
  const http = (env: Record<string, string>) => loadConfig(httpServerEnv, env);

  it('default to tens of seconds, the keep-alive above a load balancer’s usual 60 s idle timeout', () => {
    expect(http({})).toEqual({
      HTTP_REQUEST_TIMEOUT_MS: 60_000,
      HTTP_HEADERS_TIMEOUT_MS: 15_000,
      HTTP_KEEPALIVE_TIMEOUT_MS: 65_000,
    });
  });

  it('are part of every process’s metricsEnv', () => {
    expect(Object.keys(metricsEnv('worker'))).toEqual(expect.arrayContaining(Object.keys(httpServerEnv)));
  });

  it('refuse a headers timeout above the request timeout (Node would throw), naming both', () => {
    expect(() => http({ HTTP_REQUEST_TIMEOUT_MS: '5000', HTTP_HEADERS_TIMEOUT_MS: '6000' })).toThrow(
      'HTTP_HEADERS_TIMEOUT_MS: must be at most HTTP_REQUEST_TIMEOUT_MS (5000)',
    );
  });

  it('refuse values under a second', () => {
    expect(() => http({ HTTP_REQUEST_TIMEOUT_MS: '0' })).toThrow(/HTTP_REQUEST_TIMEOUT_MS/);
  });
});

describe('the inbox agent endpoint', () => {
  const agent = (env: Record<string, string>) => inboxAgentEndpoint(loadConfig(inboxAgentEnv, env));

  it('is null without INBOX_AGENT_URL: nothing runs', () => {
    expect(agent({})).toBeNull();
    expect(agent({ INBOX_AGENT_MODEL: 'm' })).toBeNull();
  });

  it('is the URL, model, key and timeout when configured', () => {
    expect(
      agent({
        INBOX_AGENT_URL: 'http://127.0.0.1:8000/v1/chat/completions',
        INBOX_AGENT_MODEL: 'llama3',
        INBOX_AGENT_API_KEY: 'sk-x',
        INBOX_AGENT_TIMEOUT_MS: '5000',
      }),
    ).toEqual({
      url: 'http://127.0.0.1:8000/v1/chat/completions',
      model: 'llama3',
      apiKey: 'sk-x',
      timeoutMs: 5000,
    });
    expect(
      agent({ INBOX_AGENT_URL: 'https://api.example.com/v1/chat/completions', INBOX_AGENT_MODEL: 'm' }),
    ).toMatchObject({
      apiKey: null,
      timeoutMs: 60_000,
    });
  });

  it('a URL without a model is a configuration error naming the variable', () => {
    expect(() => agent({ INBOX_AGENT_URL: 'http://127.0.0.1:8000/v1/chat/completions' })).toThrow(
      /INBOX_AGENT_MODEL: required when INBOX_AGENT_URL is set/,
    );
    expect(() => agent({ INBOX_AGENT_URL: 'not a url', INBOX_AGENT_MODEL: 'm' })).toThrow(/INBOX_AGENT_URL/);
  });
});

describe('the broadcast lane yield (WORKER_BROADCAST_YIELD_*)', () => {
  const yieldConfig = (env: Record<string, string>) => loadConfig(broadcastLaneYieldEnv, env);

  it('WORKER_BROADCAST_YIELD=false: no rule, the lane keeps its concurrency', () => {
    expect(broadcastLaneYieldRule(yieldConfig({ WORKER_BROADCAST_YIELD: 'false' }))).toBeUndefined();
  });

  it('is on by default, with the documented thresholds, floor and interval', () => {
    expect(broadcastLaneYieldRule(yieldConfig({}))).toEqual(
      broadcastLaneYieldRule(yieldConfig({ WORKER_BROADCAST_YIELD: 'true' })),
    );
    const c = yieldConfig({});
    expect(broadcastLaneYieldRule(c)).toEqual({ idleAt: 0, busyAt: 3, minConcurrency: 1 });
    expect(c.WORKER_BROADCAST_YIELD_INTERVAL_MS).toBe(100);
  });

  it('refuses a floor of 0 (a broadcast never stops), naming the setting', () => {
    expect(() => yieldConfig({ WORKER_BROADCAST_MIN_CONCURRENCY: '0' })).toThrow(
      /WORKER_BROADCAST_MIN_CONCURRENCY/,
    );
  });
});
