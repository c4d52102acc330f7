import { describe, expect, it } from 'vitest';
import { ConfigError, METRICS_PORTS } from '@petrel/config';
import { loadPetrelConfig } from './config.js';

describe('all-in-one configuration', () => {
  it('runs on embedded defaults with nothing set', () => {
    const config = loadPetrelConfig({});
    expect(config.REDIS_URL).toBeUndefined();
    expect(config.SMTP_URL).toBeUndefined();
    expect(config).toMatchObject({
      REDIS_KEY_PREFIX: 'pt',
      PORT: 3000,
      EMBEDDED_REDIS_PORT: 6390,
      CAPTURE_SMTP_PORT: 2525,
      EMAIL_RETENTION_DAYS: 30,
      HOUSEKEEPING_INTERVAL_S: 60,
      WORKER_CONCURRENCY: 50,
    });
  });

  it('serves one health and metrics port, the all-in-one default unless set', () => {
    expect(loadPetrelConfig({}).METRICS_PORT).toBe(METRICS_PORTS.petrel);
    expect(loadPetrelConfig({ METRICS_PORT: '0' }).METRICS_PORT).toBe(0);
  });

  it('allows private-network webhooks by default (a development profile), unless turned off', () => {
    expect(loadPetrelConfig({}).WEBHOOK_ALLOW_PRIVATE_NETWORKS).toBe(true);
    expect(loadPetrelConfig({ WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'off' }).WEBHOOK_ALLOW_PRIVATE_NETWORKS).toBe(
      false,
    );
  });

  it('refuses bad values with one message naming every variable', () => {
    let error: unknown;
    try {
      loadPetrelConfig({ EMBEDDED_REDIS_PORT: '0', REDIS_KEY_PREFIX: 'a:b', RETRY_SCHEDULE_S: '1,x' });
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const message = (error as Error).message;
    for (const name of ['EMBEDDED_REDIS_PORT', 'REDIS_KEY_PREFIX', 'RETRY_SCHEDULE_S']) {
      expect(message).toContain(name);
    }
  });
});
