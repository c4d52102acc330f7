import { afterEach, describe, expect, it } from 'vitest';
import { loadWorkerConfig } from './config.js';
import { createLaneSenders, type LaneSenders } from './senders.js';

let made: LaneSenders | undefined;
afterEach(async () => {
  await Promise.all(made?.all.map((s) => s.close()) ?? []);
  made = undefined;
});

describe('createLaneSenders', () => {
  it('relays through SMTP_URL by default, one pool per lane', () => {
    const config = loadWorkerConfig({ SMTP_URL: 'smtp://127.0.0.1:2525' });
    expect(config.DELIVERY_MODE).toBe('relay');
    expect(config.DNS_SERVERS).toEqual([]);
    made = createLaneSenders(config);
    expect(made.all).toHaveLength(made.byLane.size);
    expect(new Set(made.byLane.values()).size).toBe(made.byLane.size);
  });

  it('delivers direct with one sender shared by the lanes, on the configured resolvers', () => {
    const config = loadWorkerConfig({
      DELIVERY_MODE: 'direct',
      DNS_SERVERS: '127.0.0.1:5353, [::1]:53,9.9.9.9',
      DIRECT_SMTP_PORT: '2526',
    });
    expect(config.DNS_SERVERS).toEqual(['127.0.0.1:5353', '[::1]:53', '9.9.9.9']);
    expect(config.DIRECT_SMTP_PORT).toBe(2526);
    made = createLaneSenders(config);
    expect(made.all).toHaveLength(1);
    expect([...made.byLane.values()].every((s) => s === made!.all[0])).toBe(true);
  });

  it('refuses an unknown mode and a resolver that is not an address', () => {
    expect(() => loadWorkerConfig({ DELIVERY_MODE: 'mx' })).toThrow(/DELIVERY_MODE/);
    expect(() => loadWorkerConfig({ DNS_SERVERS: 'dns.example.com' })).toThrow(/DNS_SERVERS/);
  });
});
