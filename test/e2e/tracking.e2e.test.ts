/**
 * Open and click tracking on one Redis server (scenarios/tracking.ts; the cluster suite runs the
 * same scenarios), and the CLI switch that turns it on for a team, checked by what a send of that
 * team carries.
 */
import { describe, expect, it } from 'vitest';
import { Resend } from 'resend';
import { petrelCli, fileStack } from './helpers.js';
import { trackingScenarios } from './scenarios/tracking.js';

const stack = fileStack();

trackingScenarios(() => stack);

describe('petrel team tracking (CLI)', () => {
  const cli = (...args: string[]) => petrelCli(stack)(...args);

  it('shows and sets a team’s switches; the team’s next emails carry the pixel only', async () => {
    const team = (await cli('teams', 'create', 'cli-tracking')).stdout.trim();
    expect((await cli('team', 'tracking', '--team', team)).stdout).toBe(
      `team:  ${team}\nopen:  off\nclick: off\n`,
    );
    expect((await cli('team', 'tracking', '--open', 'on', '--team', team)).stdout).toBe(
      `team:  ${team}\nopen:  on\nclick: off\n`,
    );
    await expect(cli('team', 'tracking', '--click', 'maybe', '--team', team)).rejects.toMatchObject({
      code: 1,
    });
    await expect(cli('team', 'tracking', '--open', 'on', '--team', 'no-such-team')).rejects.toMatchObject({
      code: 1,
    });

    const token = /token: (re_\S+)/.exec(
      (await cli('keys', 'create', '--name', 'ci', '--team', team)).stdout,
    )![1]!;
    const client = new Resend(token, { baseUrl: stack.baseUrl });
    const { data, error } = await client.emails.send({
      from: 'Acme <hello@acme.test>',
      to: 'cli@tracking.test',
      subject: 'Hi',
      html: '<p><a href="https://shop.test/">shop</a></p>',
    });
    expect(error).toBeNull();
    await stack.settled([data!.id]);
    const [m] = stack.sink.byMessageId(`<${data!.id}@acme.test>`);
    expect(m!.parsed.html).toContain('<a href="https://shop.test/">shop</a>');
    expect(m!.parsed.html).toMatch(/\/t\/o\/[\w.-]+"/);
  });
});
