/**
 * `npm run petrel -- <command>`: manage teams and API keys directly in Redis.
 *
 *   teams list | teams create <name>
 *   keys list [--team <id>] | keys create --name <n> [--team <id>] [--permission full_access|sending_access]
 *   keys revoke <keyId> [--team <id>]
 *   team tracking [--open on|off] [--click on|off] [--team <id>]   (shows the switches; sets those given)
 *   team limits [--rps <n>|default] [--daily-quota <n>|default] [--complaint-rate <0..1>|default]
 *               [--hard-bounce-rate <0..1>|default] [--min-sample <n>|default] [--team <id>]
 *                                        (requests per second, emails per UTC day; 0 = none,
 *                                         default = RATE_LIMIT_RPS / DAILY_QUOTA; the broadcast
 *                                         protection thresholds, default = BROADCAST_PROTECTION_*)
 *   oauth-clients list | oauth-clients delete <clientId>
 *   oauth-clients create --name <n> --redirect-uri <url> [--redirect-uri <url>…] [--logo <url>] [--confidential]
 *                                        (a third-party app for OAuth: docs/oauth.md; a confidential
 *                                         client's secret is printed once)
 *
 * Uses REDIS_URL, or the embedded Redis of `npm start` (started for the command if not running).
 */
import { parseArgs } from 'node:util';
import { API_KEY_PERMISSIONS, isApiKeyPermission } from '@petrel/contracts';
import { initLogger } from '@petrel/observability';
import { openRuntime } from '@petrel/runtime';
import { teamLimits, teamTracking } from './cli-commands.js';
import { oauthClients } from './cli-oauth.js';
import { loadPetrelConfig } from './config.js';
import { startEmbeddedRedis } from './embedded-redis.js';

const USAGE = `usage: npm run petrel -- <command>
  teams list
  teams create <name>
  keys list [--team <id>]
  keys create --name <name> [--team <id>] [--permission full_access|sending_access]
  keys revoke <keyId> [--team <id>]
  team tracking [--open on|off] [--click on|off] [--team <id>]
  team limits [--rps <n>|default] [--daily-quota <n>|default] [--complaint-rate <0..1>|default]
              [--hard-bounce-rate <0..1>|default] [--min-sample <n>|default] [--team <id>]
  oauth-clients list
  oauth-clients create --name <name> --redirect-uri <url> [--redirect-uri <url>…] [--logo <url>] [--confidential]
  oauth-clients delete <clientId>`;

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
      'complaint-rate': { type: 'string' },
      'hard-bounce-rate': { type: 'string' },
      'min-sample': { type: 'string' },
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
      case 'team tracking':
        return await teamTracking(rt, team, values);
      case 'team limits':
        return await teamLimits(rt, team, values, config);
      case 'oauth-clients list':
      case 'oauth-clients create':
      case 'oauth-clients delete':
        return await oauthClients(rt, command, arg, values);
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
