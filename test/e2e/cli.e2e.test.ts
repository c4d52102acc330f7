/** The key-management CLI (`npm run petrel -- …`) against a real Redis, checked through the API. */
import { expect, it } from 'vitest';
import { Resend } from 'resend';
import { petrelCli, fileStack } from './helpers.js';

const stack = fileStack();

const cli = (...args: string[]) => petrelCli(stack)(...args);

it('creates a team and a key, lists and revokes it; the API honours each step', async () => {
  const team = (await cli('teams', 'create', 'acme')).stdout.trim();
  expect(team).toMatch(/^[0-9a-f-]{36}$/);
  expect((await cli('teams', 'list')).stdout).toContain(`${team}\tacme`);

  const created = (
    await cli('keys', 'create', '--name', 'ci', '--team', team, '--permission', 'sending_access')
  ).stdout;
  const token = /token: (re_\S+)/.exec(created)![1]!;
  const id = /id:\s+(\S+)/.exec(created)![1]!;
  const client = new Resend(token, { baseUrl: stack.baseUrl });
  expect(
    (await client.emails.send({ from: 'a@acme.test', to: 'b@example.test', subject: 's', html: 'x' })).error,
  ).toBeNull();
  expect((await client.apiKeys.list()).error).toMatchObject({ name: 'restricted_api_key' });
  // Another team's key does not see the default team's keys.
  expect((await cli('keys', 'list', '--team', team)).stdout).toContain(`${id}\tci\tsending_access`);

  expect((await cli('keys', 'revoke', id, '--team', team)).stdout).toContain(`revoked ${id}`);
  expect(
    (await client.emails.send({ from: 'a@acme.test', to: 'b@example.test', subject: 's', html: 'x' })).error,
  ).toMatchObject({
    statusCode: 403,
    name: 'invalid_api_key',
  });
  await expect(cli('keys', 'revoke', id, '--team', team)).rejects.toMatchObject({ code: 1 });
  await expect(cli('bogus')).rejects.toMatchObject({ code: 2 });
});
