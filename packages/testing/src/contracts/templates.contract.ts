/**
 * The contract of core's TemplatesPort (packages/core/src/templates/templates-port.ts), run
 * against the in-memory port and the Redis store: templates by id (any case) or alias, aliases
 * unique per team, partial updates, optimistic publish, duplicates.
 */
import { expect, it } from 'vitest';
import type { NewTemplateContent, TemplatesPort } from '@petrel/core';
import { UNKNOWN_ID, describePortContract, type MakePort } from './kit.js';

const content = (over: Partial<NewTemplateContent> = {}): NewTemplateContent => ({
  name: 'Welcome',
  alias: null,
  from: 'Acme <hi@acme.test>',
  subject: 'Hi {{{NAME}}}',
  reply_to: ['r@acme.test'],
  html: '<p>Hello {{{NAME}}}</p>',
  text: null,
  variables: [{ key: 'NAME', type: 'string', fallback_value: 'there' }],
  ...over,
});

export function describeTemplatesContract(name: string, makePort: MakePort<TemplatesPort>): void {
  describePortContract(`TemplatesPort contract: ${name}`, makePort, (setup) => {
    async function created(port: TemplatesPort, team: string, c: NewTemplateContent): Promise<string> {
      const res = await port.create(team, c);
      if (!res.ok) throw new Error(`create: ${res.reason}`);
      return res.id;
    }

    it('creates a template read back by id in any case and by alias; unknown or foreign is null', async () => {
      const { port, team, other } = setup();
      const id = await created(port, team, content({ alias: 'welcome' }));
      const read = await port.get(team, id);
      expect(read).toMatchObject({
        template: { id },
        version: { subject: 'Hi {{{NAME}}}', html: '<p>Hello {{{NAME}}}</p>', text: null },
      });
      expect(read!.version.variables.map((v) => v.key)).toEqual(['NAME']);
      expect(await port.get(team, id.toUpperCase())).toEqual(read);
      expect(await port.get(team, 'welcome')).toEqual(read);
      expect(await port.get(team, UNKNOWN_ID)).toBeNull();
      expect(await port.get(team, 'nope')).toBeNull();
      expect(await port.get(other, id)).toBeNull();
      expect(await port.get(other, 'welcome')).toBeNull();
    });

    it('aliases are unique per team, on create and update; a changed alias frees the old one', async () => {
      const { port, team, other } = setup();
      const a = await created(port, team, content({ alias: 'a' }));
      const b = await created(port, team, content({ alias: 'b' }));
      expect(await port.create(team, content({ alias: 'a' }))).toEqual({ ok: false, reason: 'alias_taken' });
      expect(await port.create(other, content({ alias: 'a' }))).toMatchObject({ ok: true });
      expect(await port.update(team, b, { alias: 'a' })).toEqual({ ok: false, reason: 'alias_taken' });
      expect(await port.update(team, 'a', { alias: 'a2' })).toMatchObject({ ok: true, id: a });
      expect(await port.get(team, 'a')).toBeNull();
      expect(await port.get(team, 'a2')).toMatchObject({ template: { id: a } });
      expect(await port.update(team, b, { alias: 'a' })).toMatchObject({ ok: true, id: b });
    });

    it('update: absent keeps, null clears; an unknown or foreign template is not_found', async () => {
      const { port, team, other } = setup();
      const id = await created(port, team, content({ text: 'plain' }));
      expect(await port.update(team, id, { subject: null, html: '<p>Bye</p>' })).toMatchObject({
        ok: true,
        id,
      });
      expect(await port.get(team, id)).toMatchObject({
        version: { subject: null, html: '<p>Bye</p>', text: 'plain' },
      });
      expect(await port.update(team, UNKNOWN_ID, { html: '<p>x</p>' })).toEqual({
        ok: false,
        reason: 'not_found',
      });
      expect(await port.update(other, id, { html: '<p>x</p>' })).toEqual({ ok: false, reason: 'not_found' });
      expect(await port.get(team, id)).toMatchObject({ version: { html: '<p>Bye</p>' } });
    });

    it('publish is optimistic: an edit of a published template makes a new current version, and publishing the old one is `changed`', async () => {
      const { port, team, other } = setup();
      const id = await created(port, team, content());
      const v1 = (await port.get(team, id))!.template.current_version_id;
      expect(await port.publish(team, id, v1)).toEqual({ ok: true, versionId: v1 });
      expect(await port.update(team, id, { html: '<p>Edited {{{NAME}}}</p>' })).toMatchObject({ ok: true });
      const v2 = (await port.get(team, id))!.template.current_version_id;
      expect(v2).not.toBe(v1);
      expect(await port.publish(team, id, v1)).toEqual({ ok: false, reason: 'changed' });
      expect(await port.publish(team, id, v2)).toEqual({ ok: true, versionId: v2 });
      expect(await port.publish(team, UNKNOWN_ID, v2)).toEqual({ ok: false, reason: 'not_found' });
      expect(await port.publish(other, id, v2)).toEqual({ ok: false, reason: 'not_found' });
    });

    it('publish is optimistic on drafts too: an edit of a never-published draft makes a new current version, and publishing the one read before the edit is `changed`', async () => {
      const { port, team } = setup();
      const id = await created(port, team, content());
      const read = (await port.get(team, id))!.template.current_version_id;
      expect(await port.update(team, id, { html: '<p>Edited {{{NAME}}}</p>' })).toMatchObject({ ok: true });
      const edited = (await port.get(team, id))!.template.current_version_id;
      expect(edited).not.toBe(read);
      expect(await port.publish(team, id, read)).toEqual({ ok: false, reason: 'changed' });
      expect(await port.publish(team, id, edited)).toEqual({ ok: true, versionId: edited });
    });

    it('an update that changes no content (a rename, the same html) keeps the current version', async () => {
      const { port, team } = setup();
      const id = await created(port, team, content());
      const v1 = (await port.get(team, id))!.template.current_version_id;
      const renamed = await port.update(team, id, { name: 'Renamed', html: '<p>Hello {{{NAME}}}</p>' });
      expect(renamed).toMatchObject({ ok: true, id });
      expect((await port.get(team, id))!.template.current_version_id).toBe(v1);
      expect(await port.publish(team, id, v1)).toEqual({ ok: true, versionId: v1 });
    });

    it('duplicate: a new template with the current content and without the alias; unknown is null', async () => {
      const { port, team, other } = setup();
      const id = await created(port, team, content({ alias: 'orig' }));
      await port.update(team, id, { text: 'latest' });
      const copy = await port.duplicate(team, 'orig');
      expect(copy).not.toBeNull();
      expect(copy).not.toBe(id);
      const original = await port.get(team, id);
      const read = await port.get(team, copy!);
      const body = (v: NonNullable<typeof read>['version']) => ({
        subject: v.subject,
        html: v.html,
        text: v.text,
        variables: v.variables.map((x) => x.key),
      });
      expect(body(read!.version)).toEqual(body(original!.version));
      expect(read!.version.text).toBe('latest');
      expect(await port.get(team, 'orig')).toMatchObject({ template: { id } });
      expect(await port.duplicate(team, UNKNOWN_ID)).toBeNull();
      expect(await port.duplicate(other, id)).toBeNull();
    });
  });
}
