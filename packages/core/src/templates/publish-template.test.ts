import { describe, expect, it } from 'vitest';
import { MemoryTemplates } from '@petrel/testing';
import { PUBLISH_ATTEMPTS, publishTemplate } from './publish-template.js';

async function setup(html = '<p>{{{NAME}}}</p>', variables = [{ key: 'NAME', type: 'string' as const }]) {
  const templates = new MemoryTemplates();
  const created = await templates.create('team', {
    name: 'welcome',
    alias: 'welcome',
    from: null,
    subject: 'Hi {{{NAME}}}',
    reply_to: null,
    html,
    text: null,
    variables,
  });
  if (!created.ok) throw new Error('setup');
  return { templates, id: created.id, ports: { templates } };
}

describe('publishTemplate', () => {
  it('publishes the current version (by id or alias); sends then resolve it', async () => {
    const { templates, id, ports } = await setup();
    const { versionId } = await publishTemplate({ teamId: 'team', idOrAlias: 'welcome' }, ports);
    expect(versionId).toBe(templates.templates.get(id)!.current_version_id);
    expect(await templates.getPublished('team', id)).toMatchObject({ ok: true, template: { id } });
  });

  it('refuses a template that uses undeclared variables, naming them, and publishes nothing', async () => {
    const { templates, id, ports } = await setup('<p>{{{NAME}}} {{{CITY}}} {{{ZIP|none}}}</p>');
    await expect(publishTemplate({ teamId: 'team', idOrAlias: id }, ports)).rejects.toMatchObject({
      statusCode: 422,
      errorName: 'validation_error',
      message:
        'variables: the template uses CITY, ZIP without declaring them; declare every variable before publishing',
    });
    expect(templates.templates.get(id)!.published_version_id).toBeNull();
  });

  it('allows the variables Petrel supplies itself without declaration', async () => {
    const { ports, id } = await setup('<p>{{{NAME}}} <a href="{{{RESEND_UNSUBSCRIBE_URL}}}">x</a></p>');
    await expect(publishTemplate({ teamId: 'team', idOrAlias: id }, ports)).resolves.toMatchObject({ id });
  });

  it("is a 404 for an unknown template and another team's", async () => {
    const { ports } = await setup();
    await expect(publishTemplate({ teamId: 'team', idOrAlias: 'nope' }, ports)).rejects.toMatchObject({
      errorName: 'not_found',
      message: 'Template not found',
    });
    await expect(publishTemplate({ teamId: 'other', idOrAlias: 'welcome' }, ports)).rejects.toMatchObject({
      errorName: 'not_found',
    });
  });

  it('re-reads and re-checks after a concurrent edit: a now-invalid version is refused, not published', async () => {
    const { templates, id, ports } = await setup();
    let edits = 0;
    templates.beforePublish = () => {
      if (edits++ === 0) void templates.update('team', id, { html: '<p>{{{UNDECLARED}}}</p>' });
    };
    await expect(publishTemplate({ teamId: 'team', idOrAlias: id }, ports)).rejects.toMatchObject({
      message: expect.stringContaining('uses UNDECLARED without declaring it'),
    });
    expect(templates.calls.filter((c) => c.method === 'get')).toHaveLength(2);
  });

  it(`gives up with a 409 after ${PUBLISH_ATTEMPTS} concurrent edits in a row`, async () => {
    const { templates, id, ports } = await setup();
    // A content edit each time: a rename alone keeps the version and would not conflict.
    let edits = 0;
    templates.beforePublish = () =>
      void templates.update('team', id, { html: `<p>{{{NAME}}} ${++edits}</p>` });
    await expect(publishTemplate({ teamId: 'team', idOrAlias: id }, ports)).rejects.toMatchObject({
      statusCode: 409,
      errorName: 'conflict',
    });
    expect(templates.calls.filter((c) => c.method === 'publish')).toHaveLength(PUBLISH_ATTEMPTS);
  });
});
