import { describe, expect, it } from 'vitest';
import { MemoryTemplates } from '@petrel/testing';
import { createTemplate, updateTemplate } from './create-template.js';

const input = { name: 'Welcome', html: '<p>Hi</p>' };

describe('createTemplate', () => {
  it('stores the template with unset optional fields as null', async () => {
    const templates = new MemoryTemplates();
    const { id } = await createTemplate({ teamId: 'team', input }, { templates });
    expect(await templates.get('team', id)).toMatchObject({
      version: { html: '<p>Hi</p>', subject: null, text: null, variables: [] },
    });
  });

  it.each([
    [{ from: 'not an address' }, /^from: is not a valid address \(/],
    [{ reply_to: ['ok@acme.test', 'a@b@c'] }, /^reply_to\[1\]: is not a valid address \(/],
  ])('refuses addresses a send would refuse: %j', async (fields, message) => {
    const templates = new MemoryTemplates();
    await expect(
      createTemplate({ teamId: 'team', input: { ...input, ...fields } }, { templates }),
    ).rejects.toMatchObject({
      errorName: 'validation_error',
      message: expect.stringMatching(message),
    });
    expect(templates.templates.size).toBe(0);
  });

  it('refuses an alias another template of the team uses; another team may use it', async () => {
    const templates = new MemoryTemplates();
    await createTemplate({ teamId: 'team', input: { ...input, alias: 'welcome' } }, { templates });
    await expect(
      createTemplate({ teamId: 'team', input: { ...input, alias: 'welcome' } }, { templates }),
    ).rejects.toMatchObject({ message: "alias: 'welcome' is already used by another template" });
    await expect(
      createTemplate({ teamId: 'other', input: { ...input, alias: 'welcome' } }, { templates }),
    ).resolves.toMatchObject({ id: expect.any(String) });
  });
});

describe('updateTemplate', () => {
  it('applies the patch; null clears, absent keeps', async () => {
    const templates = new MemoryTemplates();
    const { id } = await createTemplate(
      { teamId: 'team', input: { ...input, subject: 'S', text: 'T' } },
      { templates },
    );
    await updateTemplate(
      { teamId: 'team', idOrAlias: id, patch: { text: null, html: '<p>New</p>' } },
      { templates },
    );
    expect(await templates.get('team', id)).toMatchObject({
      version: { subject: 'S', text: null, html: '<p>New</p>' },
    });
  });

  it('refuses a bad address, a taken alias, and an unknown template (404)', async () => {
    const templates = new MemoryTemplates();
    await createTemplate({ teamId: 'team', input: { ...input, alias: 'taken' } }, { templates });
    const { id } = await createTemplate({ teamId: 'team', input }, { templates });
    const update = (idOrAlias: string, patch: object) =>
      updateTemplate({ teamId: 'team', idOrAlias, patch }, { templates });
    await expect(update(id, { from: '<>' })).rejects.toMatchObject({
      message: expect.stringMatching(/^from: /),
    });
    await expect(update(id, { alias: 'taken' })).rejects.toMatchObject({
      message: "alias: 'taken' is already used by another template",
    });
    await expect(update('nope', { name: 'x' })).rejects.toMatchObject({
      statusCode: 404,
      errorName: 'not_found',
    });
  });
});
