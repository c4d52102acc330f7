/**
 * `npm run petrel -- <command>`: manage teams and API keys directly in Redis.
 *
 *   teams list | teams create <name>
 *   keys list [--team <id>] | keys create --name <n> [--team <id>] [--permission full_access|sending_access]
 *   keys revoke <keyId> [--team <id>]
 *   team tracking [--open on|off] [--click on|off] [--team <id>]   (shows the switches; sets those given)
 *   team limits [--rps <n>|default] [--daily-quota <n>|default] [--team <id>]
 *                                        (requests per second, emails per UTC day; 0 = none,
 *                                         default = RATE_LIMIT_RPS / DAILY_QUOTA)
 *   oauth-clients list | oauth-clients delete <clientId>
 *   oauth-clients create --name <n> --redirect-uri <url> [--redirect-uri <url>…] [--logo <url>] [--confidential]
 *                                        (a third-party app for OAuth: docs/oauth.md; a confidential
 *                                         client's secret is printed once)
 *
 * Uses REDIS_URL, or the embedded Redis of `npm start` (started for the command if not running).
 */
import { parseArgs } from 'node:util';
import { API_KEY_PERMISSIONS, isApiKeyPermission } from '@petrel/contracts';
import { newId, registerOAuthClient } from '@petrel/core';
import { randomBytes } from 'node:crypto';
import { initLogger } from '@petrel/observability';
import { openRuntime } from '@petrel/runtime';
import { loadPetrelConfig } from './config.js';
import { startEmbeddedRedis } from './embedded-redis.js';

const USAGE = `usage: npm run petrel -- <command>
  teams list
  teams create <name>
  keys list [--team <id>]
  keys create --name <name> [--team <id>] [--permission full_access|sending_access]
  keys revoke <keyId> [--team <id>]
  team tracking [--open on|off] [--click on|off] [--team <id>]
  team limits [--rps <n>|default] [--daily-quota <n>|default] [--team <id>]
  oauth-clients list
  oauth-clients create --name <name> --redirect-uri <url> [--redirect-uri <url>…] [--logo <url>] [--confidential]
  oauth-clients delete <clientId>`;

/** A limit option: a whole number (0 = none), `default` (null: the deployment's), or undefined. */
function limitOption(name: string, value: string | undefined): number | null | undefined {
  if (value === undefined) return undefined;
  if (value === 'default') return null;
  if (!/^\d+$/.test(value)) throw new Error(`--${name} must be a whole number (0 = no limit) or default`);
  return Number(value);
}

/** `on` / `off` of a switch option; undefined when not given. */
function onOff(name: string, value: string | undefined): boolean | undefined {
  if (value === undefined) return undefined;
  if (value !== 'on' && value !== 'off') throw new Error(`--${name} must be on or off`);
  return value === 'on';
}

async function main(): Promise<number> {
  const config = loadPetrelConfig();
  initLogger({ level: 'warn', name: 'cli' });
  const { positionals, values } = parseArgs({
    allowPositionals: true,
    options: {
      name: { type: 'string' },
      team: { type: 'string' },
      permission: { type: 'string' },
      open: { type: 'string' },
      click: { type: 'string' },
      rps: { type: 'string' },
      'daily-quota': { type: 'string' },
      'redirect-uri': { type: 'string', multiple: true },
      logo: { type: 'string' },
      confidential: { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  const [group, command, arg] = positionals;
  if (values.help || !group || !command) {
    console.log(USAGE);
    return values.help ? 0 : 2;
  }
  const embedded = config.REDIS_URL
    ? null
    : await startEmbeddedRedis({ dataDir: config.DATA_DIR, port: config.EMBEDDED_REDIS_PORT });
  const rt = openRuntime({ ...config, REDIS_URL: config.REDIS_URL ?? embedded!.url }, 'cli');
  const store = rt.stores.apiKeys;
  try {
    const team = values.team ?? (await store.ensureDefaultTeam());
    if (values.team && !(await store.teamExists(values.team))) throw new Error(`no team ${values.team}`);
    switch (`${group} ${command}`) {
      case 'teams list':
        for (const t of await store.listTeams()) console.log(`${t.id}\t${t.name}\t${t.created_at}`);
        return 0;
      case 'teams create': {
        if (!arg) throw new Error('teams create needs a name');
        console.log(await store.createTeam(arg));
        return 0;
      }
      case 'keys list':
        for (const k of await store.list(team)) {
          console.log(
            `${k.id}\t${k.name}\t${k.permission}\tcreated ${k.created_at}\tlast used ${k.last_used_at ?? 'never'}`,
          );
        }
        return 0;
      case 'keys create': {
        if (!values.name) throw new Error('keys create needs --name');
        const permission = values.permission ?? 'full_access';
        if (!isApiKeyPermission(permission)) {
          throw new Error(`--permission must be one of: ${API_KEY_PERMISSIONS.join(', ')}`);
        }
        const key = await store.create(team, { name: values.name, permission });
        console.log(`id:    ${key.id}\nteam:  ${team}\ntoken: ${key.token}\n(the token is shown only now)`);
        return 0;
      }
      case 'keys revoke': {
        if (!arg) throw new Error('keys revoke needs a key id');
        if (!(await store.revoke(team, arg))) throw new Error(`no key ${arg} in team ${team}`);
        console.log(`revoked ${arg}`);
        return 0;
      }
      case 'team tracking': {
        // open and click tracking of the team's emails (Resend's open_tracking / click_tracking)
        const settings = rt.stores.teamSettings;
        const change = { open: onOff('open', values.open), click: onOff('click', values.click) };
        const now = await settings.setTracking(team, {
          ...(change.open !== undefined && { open: change.open }),
          ...(change.click !== undefined && { click: change.click }),
        });
        if (!now) throw new Error(`no team ${team}`);
        const word = (on: boolean) => (on ? 'on' : 'off');
        console.log(`team:  ${team}\nopen:  ${word(now.open)}\nclick: ${word(now.click)}`);
        return 0;
      }
      case 'team limits': {
        // the team's request rate and daily sending quota, over RATE_LIMIT_RPS / DAILY_QUOTA
        const limits = rt.stores.limits;
        const rps = limitOption('rps', values.rps);
        const dailyQuota = limitOption('daily-quota', values['daily-quota']);
        const now = await limits.setLimits(team, {
          ...(rps !== undefined && { rps }),
          ...(dailyQuota !== undefined && { dailyQuota }),
        });
        if (!now) throw new Error(`no team ${team}`);
        const show = (own: number | null, fallback: number, unit: string) =>
          own === null
            ? `default (${fallback > 0 ? `${fallback} ${unit}` : 'none'})`
            : own > 0
              ? `${own} ${unit}`
              : 'none';
        console.log(
          `team:        ${team}\nrps:         ${show(now.rps, config.RATE_LIMIT_RPS, 'per second')}\n` +
            `daily quota: ${show(now.dailyQuota, config.DAILY_QUOTA, 'emails per UTC day')}`,
        );
        return 0;
      }
      case 'oauth-clients list':
        for (const c of await rt.stores.oauthClients.list()) {
          const kind = c.confidential ? 'confidential' : 'public';
          console.log(`${c.id}\t${c.name}\t${kind}\t${c.redirect_uris.join(' ')}\t${c.logo_uri ?? '-'}`);
        }
        return 0;
      case 'oauth-clients create': {
        // the same rules as every registration (core's registerOAuthClient): 422-style messages
        const { client, secret } = await registerOAuthClient(
          {
            name: values.name,
            redirect_uris: values['redirect-uri'] ?? [],
            ...(values.logo !== undefined && { logo_uri: values.logo }),
            confidential: values.confidential ?? false,
          },
          {
            clients: rt.stores.oauthClients,
            newId: () => newId(),
            randomSecret: () => randomBytes(32).toString('base64url'),
            now: () => new Date(),
          },
        );
        console.log(`client_id:     ${client.id}\nname:          ${client.name}`);
        console.log(`redirect_uris: ${client.redirect_uris.join(' ')}`);
        if (secret) console.log(`client_secret: ${secret}\n(the secret is shown only now)`);
        return 0;
      }
      case 'oauth-clients delete': {
        if (!arg) throw new Error('oauth-clients delete needs a client id');
        if (!(await rt.stores.oauthClients.delete(arg))) throw new Error(`no OAuth client ${arg}`);
        console.log(`deleted ${arg}`);
        return 0;
      }
      default:
        console.error(USAGE);
        return 2;
    }
  } catch (err) {
    console.error(`error: ${(err as Error).message}`);
    return 1;
  } finally {
    await rt.close();
    await embedded?.stop();
  }
}

process.exit(await main());
