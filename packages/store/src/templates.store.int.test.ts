import { beforeAll, describe, expect, it } from 'vitest';
import type { NewTemplateContent as NewTemplate } from '@petrel/core';
import { TemplatesStore } from './templates.store.js';
import { nextTeam, useStoreRedis } from './redis.fixture.js';
import { expectNewestFirstPaging } from '../../testing/src/contracts/kit.js';

const fx = useStoreRedis('templates');
const VERSION_TTL_MS = 60_000;
let store: TemplatesStore;
beforeAll(() => {
  store = new TemplatesStore(fx.redis, fx.keys, VERSION_TTL_MS);
});

const base = (over: Partial<NewTemplate> = {}): NewTemplate => ({
  name: 'Welcome',
  alias: null,
  from: 'Acme <hi@acme.test>',
  subject: 'Hi {{{NAME}}}',
  reply_to: null,
  html: '<p>Hello {{{NAME}}}</p>',
  text: null,
  variables: [{ key: 'NAME', type: 'string', fallback_value: 'friend' }],
  ...over,
});

async function created(teamId: string, over: Partial<NewTemplate> = {}): Promise<string> {
  const res = await store.create(teamId, base(over));
  if (!res.ok) throw new Error(res.reason);
  return res.id;
}

describe('TemplatesStore', () => {
  it('creates a draft and reads it by id and by alias', async () => {
    const t = nextTeam();
    const id = await created(t, { alias: 'welcome', reply_to: ['a@acme.test'], text: '' });
    const byId = await store.get(t, id);
    const byAlias = await store.get(t, 'welcome');
    expect(byAlias).toEqual(byId);
    expect(byId?.template).toMatchObject({
      id,
      name: 'Welcome',
      alias: 'welcome',
      published_version_id: null,
      published_at: null,
    });
    expect(byId?.version).toMatchObject({
      from: 'Acme <hi@acme.test>',
      subject: 'Hi {{{NAME}}}',
      reply_to: ['a@acme.test'],
      html: '<p>Hello {{{NAME}}}</p>',
      text: '',
    });
    expect(byId?.version.variables).toEqual([
      expect.objectContaining({
        key: 'NAME',
        type: 'string',
        fallback_value: 'friend',
        id: expect.any(String),
      }),
    ]);
    expect(await store.get(t, 'nope')).toBeNull();
    expect(await store.get(t, '01890000-0000-7000-8000-000000000000')).toBeNull();
  });

  it('keeps null fields null', async () => {
    const t = nextTeam();
    const id = await created(t, { from: null, subject: null, variables: [] });
    const got = await store.get(t, id);
    expect(got?.version).toMatchObject({
      from: null,
      subject: null,
      reply_to: null,
      text: null,
      variables: [],
    });
  });

  it('lets only one of two concurrent creates take an alias', async () => {
    const t = nextTeam();
    const results = await Promise.all(
      Array.from({ length: 10 }, () => store.create(t, base({ alias: 'race' }))),
    );
    expect(results.filter((r) => r.ok)).toHaveLength(1);
    expect(results.filter((r) => !r.ok)).toEqual(
      Array.from({ length: 9 }, () => ({ ok: false, reason: 'alias_taken' })),
    );
    expect((await store.list(t, { limit: 100 }))?.items).toHaveLength(1);
  });

  it('gives every content edit a new version, drops replaced drafts, keeps published versions', async () => {
    const t = nextTeam();
    const id = await created(t);
    const v0 = (await store.get(t, id))!.template.current_version_id;

    const edit = await store.update(t, id, { html: '<p>Hey {{{NAME}}}</p>' });
    expect(edit).toMatchObject({ ok: true, id, version: 'new' });
    const v1 = edit.ok ? edit.versionId : '';
    expect(v1).not.toBe(v0);
    // The replaced draft was never published, so no email can pin it: it is gone.
    expect(await store.getVersion(t, id, v0)).toBeNull();
    expect(await fx.redis.hget(fx.keys.template(t, id), 'versions')).toBe(v1);

    expect(await store.publish(t, id, v1)).toEqual({ ok: true, versionId: v1 });
    let meta = (await store.get(t, id))!.template;
    expect(meta.published_version_id).toBe(v1);
    expect(meta.published_at).not.toBeNull();

    const edit2 = await store.update(t, id, { subject: 'New {{{NAME}}}', reply_to: ['r@acme.test'] });
    expect(edit2.ok && edit2.version).toBe('new');
    const v2 = edit2.ok ? edit2.versionId : '';
    expect(v2).not.toBe(v1);
    const got = (await store.get(t, id))!;
    expect(got.template.current_version_id).toBe(v2);
    expect(got.template.published_version_id).toBe(v1);
    expect(got.version.subject).toBe('New {{{NAME}}}');
    expect(got.version.html).toBe('<p>Hey {{{NAME}}}</p>');

    // The published version is untouched and is what sending sees.
    const published = await store.getPublished(t, id);
    expect(published.ok && published.compiled.version.subject).toBe('Hi {{{NAME}}}');

    // A second edit of the unpublished v2 replaces it with v3; the published v1 stays.
    const edit3 = await store.update(t, id, { text: 'plain {{{NAME}}}' });
    expect(edit3).toMatchObject({ ok: true, id, version: 'new' });
    const v3 = edit3.ok ? edit3.versionId : '';
    expect(v3).not.toBe(v2);
    expect(await store.getVersion(t, id, v2)).toBeNull();
    expect(await fx.redis.hget(fx.keys.template(t, id), 'versions')).toBe(`${v1} ${v3}`);
    expect(await store.publish(t, id, v2)).toEqual({ ok: false, reason: 'changed' });

    expect(await store.publish(t, id, v3)).toEqual({ ok: true, versionId: v3 });
    const after = await store.getPublished(t, id);
    expect(after.ok && after.compiled.version).toMatchObject({ id: v3, text: 'plain {{{NAME}}}' });
    // The old published version stays readable (emails may pin it).
    expect((await store.getVersion(t, id, v1))?.subject).toBe('Hi {{{NAME}}}');
    meta = (await store.getMeta(t, id))!;
    expect(meta.current_version_id).toBe(meta.published_version_id);
  });

  it('does not create a version for an update that changes no content', async () => {
    const t = nextTeam();
    const id = await created(t);
    const v1 = (await store.get(t, id))!.template.current_version_id;
    await store.publish(t, id, v1);
    const res = await store.update(t, id, { name: 'Renamed', html: '<p>Hello {{{NAME}}}</p>' });
    expect(res).toEqual({ ok: true, id, versionId: v1, version: 'unchanged' });
    expect((await store.getMeta(t, id))?.name).toBe('Renamed');
  });

  it('keeps variable ids across updates and clears fields with null', async () => {
    const t = nextTeam();
    const id = await created(t, { reply_to: ['a@acme.test'] });
    const before = (await store.get(t, id))!.version.variables[0]!;
    await store.update(t, id, {
      reply_to: null,
      from: null,
      variables: [
        { key: 'NAME', type: 'string', fallback_value: 'pal' },
        { key: 'COUNT', type: 'number' },
      ],
    });
    const after = (await store.get(t, id))!.version;
    expect(after.reply_to).toBeNull();
    expect(after.from).toBeNull();
    expect(after.variables[0]).toMatchObject({ id: before.id, key: 'NAME', fallback_value: 'pal' });
    expect(after.variables[1]).toMatchObject({ key: 'COUNT', type: 'number', fallback_value: null });
  });

  it('renames aliases, freeing the old one, and refuses a taken alias', async () => {
    const t = nextTeam();
    const a = await created(t, { alias: 'a' });
    const b = await created(t, { alias: 'b' });
    expect(await store.update(t, a, { alias: 'b' })).toEqual({ ok: false, reason: 'alias_taken' });
    expect((await store.update(t, 'a', { alias: 'a2' })).ok).toBe(true);
    expect(await store.resolveId(t, 'a')).toBeNull();
    expect(await store.resolveId(t, 'a2')).toBe(a);
    expect((await store.update(t, b, { alias: 'a' })).ok).toBe(true);
    expect(await store.resolveId(t, 'a')).toBe(b);
    expect((await store.update(t, b, { alias: null })).ok).toBe(true);
    expect(await store.resolveId(t, 'a')).toBeNull();
    expect((await store.getMeta(t, b))?.alias).toBeNull();
    expect(await store.update(t, 'missing', { name: 'x' })).toEqual({ ok: false, reason: 'not_found' });
  });

  it.each(Array.from({ length: 10 }, (_, round) => round))(
    'applies concurrent updates of different fields without losing one (round %i)',
    async () => {
      const t = nextTeam();
      const id = await created(t);
      // every update succeeds: one that read the template just before another replaced its draft
      // version reads again (it once answered not_found and its field was lost)
      const results = await Promise.all([
        store.update(t, id, { subject: 'S' }),
        store.update(t, id, { text: 'T' }),
        store.update(t, id, { from: 'x@acme.test' }),
        store.update(t, id, { html: 'H' }),
      ]);
      for (const r of results) expect(r).toMatchObject({ ok: true });
      const v = (await store.get(t, id))!.version;
      expect(v).toMatchObject({ subject: 'S', text: 'T', from: 'x@acme.test', html: 'H' });
    },
  );

  it('refuses to publish a version that is no longer current', async () => {
    const t = nextTeam();
    const id = await created(t);
    const v1 = (await store.getMeta(t, id))!.current_version_id;
    await store.publish(t, id, v1);
    await store.update(t, id, { html: 'changed' });
    expect(await store.publish(t, id, v1)).toEqual({ ok: false, reason: 'changed' });
    expect(await store.publish(t, '01890000-0000-7000-8000-000000000000', v1)).toEqual({
      ok: false,
      reason: 'not_found',
    });
  });

  it('reports not_published and not_found for sending', async () => {
    const t = nextTeam();
    const id = await created(t, { alias: 'draft-only' });
    expect(await store.getPublished(t, 'draft-only')).toEqual({ ok: false, reason: 'not_published' });
    expect(await store.getPublished(t, id)).toEqual({ ok: false, reason: 'not_published' });
    expect(await store.getPublished(t, 'ghost')).toEqual({ ok: false, reason: 'not_found' });
    expect(await store.getPublished(nextTeam(), id)).toEqual({ ok: false, reason: 'not_found' });
  });

  it('compiles a published version once and serves it from the cache', async () => {
    const t = nextTeam();
    const id = await created(t);
    const v1 = (await store.getMeta(t, id))!.current_version_id;
    await store.publish(t, id, v1);
    const a = await store.getCompiledVersion(t, id, v1);
    const b = await store.getCompiledVersion(t, id, v1);
    expect(a).not.toBeNull();
    expect(b).toBe(a);
    expect([...a!.html.variables]).toEqual(['NAME']);
    expect(a!.text).toBeUndefined();
  });

  it('deletes a template but keeps its versions readable until they expire', async () => {
    const t = nextTeam();
    const id = await created(t, { alias: 'gone' });
    const v1 = (await store.getMeta(t, id))!.current_version_id;
    await store.publish(t, id, v1);
    const v2res = await store.update(t, id, { html: 'second' });
    const v2 = v2res.ok ? v2res.versionId : '';

    expect(await store.remove(t, 'gone')).toBe(id);
    expect(await store.get(t, id)).toBeNull();
    expect(await store.resolveId(t, 'gone')).toBeNull();
    expect((await store.list(t, { limit: 10 }))?.items).toEqual([]);
    expect(await store.remove(t, id)).toBeNull();

    for (const v of [v1, v2]) {
      expect((await store.getVersion(t, id, v))?.id).toBe(v);
      const ttl = await fx.redis.pttl(fx.keys.templateVersion(t, id, v));
      expect(ttl).toBeGreaterThan(0);
      expect(ttl).toBeLessThanOrEqual(VERSION_TTL_MS);
    }
    // The alias is free again.
    expect((await store.create(t, base({ alias: 'gone' }))).ok).toBe(true);
  });

  it('duplicates the current content as a new draft without alias', async () => {
    const t = nextTeam();
    const id = await created(t, { alias: 'orig' });
    await store.update(t, id, { subject: 'Dup {{{NAME}}}' });
    const copy = await store.duplicate(t, 'orig');
    expect(copy).not.toBeNull();
    const got = (await store.get(t, copy!))!;
    expect(got.template).toMatchObject({ name: 'Welcome (copy)', alias: null, published_version_id: null });
    expect(got.version).toMatchObject({ subject: 'Dup {{{NAME}}}', html: '<p>Hello {{{NAME}}}</p>' });
    expect(await store.duplicate(t, 'nope')).toBeNull();
  });

  it('stamps create, update and publish with the time of its clock', async () => {
    let nowMs = Date.parse('2030-05-06T07:08:09.000Z');
    const clocked = new TemplatesStore(fx.redis, fx.keys, VERSION_TTL_MS, { now: () => nowMs });
    const t = nextTeam();
    const res = await clocked.create(t, base());
    if (!res.ok) throw new Error(res.reason);
    nowMs += 60_000;
    const edit = await clocked.update(t, res.id, { subject: 'Later {{{NAME}}}' });
    if (!edit.ok) throw new Error(edit.reason);
    expect((await clocked.get(t, res.id))?.template).toMatchObject({
      created_at: '2030-05-06T07:08:09.000Z',
      updated_at: '2030-05-06T07:09:09.000Z',
    });
    nowMs += 60_000;
    expect(await clocked.publish(t, res.id, edit.versionId)).toMatchObject({ ok: true });
    expect((await clocked.get(t, res.id))?.template).toMatchObject({
      created_at: '2030-05-06T07:08:09.000Z',
      published_at: '2030-05-06T07:10:09.000Z',
    });
  });

  it('lists newest first with after/before cursors', async () => {
    const t = nextTeam();
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      ids.push(await created(t, { name: `T${i}` }));
      await new Promise((r) => setTimeout(r, 2));
    }
    await expectNewestFirstPaging((page) => store.list(t, page), ids);
    expect(await store.list(t, { limit: 2, after: 'unknown' })).toBeNull();
  });
});
