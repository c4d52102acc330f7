import { describe, expect, it } from 'vitest';
import { MemoryTemplates } from '@petrel/testing';
import { duplicateTemplate } from './duplicate-template.js';

describe('duplicateTemplate', () => {
  it('creates a draft copy of the current content, without alias', async () => {
    const templates = new MemoryTemplates();
    const original = await templates.addPublished('team', {
      name: 'Welcome',
      alias: 'welcome',
      html: '<p>x</p>',
    });
    const { id } = await duplicateTemplate({ teamId: 'team', idOrAlias: 'welcome' }, { templates });
    expect(id).not.toBe(original.id);
    expect(templates.templates.get(id)).toMatchObject({
      name: 'Welcome (copy)',
      alias: null,
      published_version_id: null,
    });
    expect(await templates.get('team', id)).toMatchObject({ version: { html: '<p>x</p>' } });
  });

  it("is a 404 for an unknown template and another team's", async () => {
    const templates = new MemoryTemplates();
    await templates.addPublished('team', { alias: 'welcome', html: 'x' });
    for (const [teamId, idOrAlias] of [
      ['team', 'nope'],
      ['other', 'welcome'],
    ] as const) {
      await expect(duplicateTemplate({ teamId, idOrAlias }, { templates })).rejects.toMatchObject({
        statusCode: 404,
        errorName: 'not_found',
      });
    }
  });
});
