import { describe, expect, it } from 'vitest';
import { useStoreRedis } from './redis.fixture.js';
import { ContactPropertiesStore } from './contact-properties.store.js';

const fx = useStoreRedis('contact-properties');
let ms = Date.now();
const store = () => new ContactPropertiesStore(fx.redis, fx.keys, { now: () => ++ms });

async function created(s: ContactPropertiesStore, key: string, fallback: string | number | null = null) {
  const res = await s.create('t', {
    key,
    type: typeof fallback === 'number' ? 'number' : 'string',
    fallback_value: fallback,
  });
  if (!res.ok) throw new Error('key taken');
  return res.id;
}

describe('ContactPropertiesStore', () => {
  it('keeps keys unique and case-sensitive; fallbacks keep their type; delete frees the key', async () => {
    const s = store();
    const plan = await created(s, 'plan', 'free');
    const seats = await created(s, 'seats', 5);
    await created(s, 'Plan');
    expect(await s.create('t', { key: 'plan', type: 'number', fallback_value: null })).toEqual({
      ok: false,
      reason: 'key_taken',
    });
    expect(await s.get('t', seats)).toMatchObject({ key: 'seats', type: 'number', fallback_value: 5 });
    expect(await s.setFallback('t', plan, null)).toBe(true);
    expect((await s.get('t', plan))?.fallback_value).toBeNull();
    expect(await s.setFallback('t', seats, 7)).toBe(true);
    expect((await s.get('t', seats))?.fallback_value).toBe(7);
    expect((await s.all('t')).map((p) => p.key)).toEqual(['Plan', 'seats', 'plan']);
    expect(await s.list('t', { limit: 2 })).toMatchObject({
      hasMore: true,
      items: [{ key: 'Plan' }, { key: 'seats' }],
    });
    expect(await s.remove('t', plan)).toBe(true);
    expect(await s.remove('t', plan)).toBe(false);
    expect(await s.setFallback('t', plan, 'x')).toBe(false);
    expect(await fx.redis.exists(fx.keys.contactProperty('t', plan))).toBe(0);
    expect((await s.create('t', { key: 'plan', type: 'number', fallback_value: null })).ok).toBe(true);
  });
});
