/**
 * What the API's routes are built from: this process's runtime (stores, queues, the accept
 * path), its configuration, and the few things made once per process here — the links' key and
 * public URL, the DNS resolvers, the idempotency of sends that are not emails.
 */
import type {
  AcceptPorts,
  BroadcastEmailReadPorts,
  DnsPort,
  EventIdempotencyPort,
  HostResolver,
  Preparer,
} from '@petrel/core';
import { unsubscribeLinks } from '@petrel/core';
import { requestLogPolicy } from '@petrel/config';
import { RequestLogWriter, createDomainDns, eventSendIdempotency } from '@petrel/store';
import { log } from '@petrel/observability';
import { systemHostResolver, type Queues, type Runtime, type Stores } from '@petrel/runtime';
import type { ApiConfig } from './config.js';
import type { RouteSpec } from './routes/route-table.js';
import { oauthComponents, type OAuthComponents } from './oauth/index.js';

export interface ApiExtensions {
  /**
   * The acceptance stages, replacing the runtime's (`runtime.preparer()`); build one with
   * `prepareWith([...acceptStages(...), extra])` from core to extend them.
   */
  preparer?: (rt: Runtime) => Preparer;
  /** Routes besides the default ones; mounted in one order with them (fixed paths first). */
  routes?: (ctx: ApiContext) => RouteSpec[];
  /** Resolves webhook endpoint host names for the SSRF check (default: the system resolver). */
  webhookResolver?: HostResolver;
}

export interface ApiContext {
  config: ApiConfig;
  rt: Runtime;
  stores: Stores;
  queues: Queues;
  accept: AcceptPorts;
  /** Idempotency-Key of POST /events/send and of draft sends: the accept path's keys. */
  sendIdempotency: EventIdempotencyPort;
  /** The team that owns the deployment's own names (INBOUND_DOMAINS without a team). */
  defaultTeamId: string;
  /** The key of every signed link (unsubscribe, downloads, shares, open/click, sessions). */
  secret: string;
  /** The public base URL links point under, read per request (PORT=0 is known once listening). */
  publicUrl: () => string;
  /** The DNS the domains' checks ask (DNS_SERVERS). */
  domainDns: DnsPort;
  /** Resolves webhook endpoint host names for the SSRF check. */
  webhookResolver: HostResolver;
  /** What GET /emails/:id (and a shared page) renders a broadcast's email from, links included. */
  broadcastEmails: BroadcastEmailReadPorts;
  /** Third-party apps through OAuth 2.1 (docs/oauth.md): its endpoints and its Bearer tokens. */
  oauth: OAuthComponents;
  requestLogPolicy: ReturnType<typeof requestLogPolicy>;
  /** The team's request log (GET /logs), written in batches after the responses; none when off. */
  requestLog: RequestLogWriter | undefined;
}

export async function apiContext(
  config: ApiConfig,
  rt: Runtime,
  ext: ApiExtensions,
  publicUrl: () => string,
): Promise<ApiContext> {
  const { stores, queues } = rt;
  await Promise.all(
    [queues.send, queues.imports, queues.fanout, queues.webhookDelivery, queues.automation].map((q) =>
      q.ready(),
    ),
  );
  const defaultTeamId = await stores.apiKeys.ensureDefaultTeam();
  if (config.BOOTSTRAP_API_KEY) await stores.apiKeys.ensureToken(defaultTeamId, config.BOOTSTRAP_API_KEY);
  const secret = await rt.secret('unsubscribe');
  const accept = await rt.acceptance(ext.preparer ? { preparer: ext.preparer(rt) } : {});
  const logPolicy = requestLogPolicy(config);
  return {
    config,
    rt,
    stores,
    queues,
    defaultTeamId,
    secret,
    publicUrl,
    domainDns: createDomainDns({ servers: config.DNS_SERVERS }),
    webhookResolver: ext.webhookResolver ?? systemHostResolver,
    // a broadcast's email is rendered with the same links the worker wrote (same key and URL)
    broadcastEmails: {
      broadcasts: stores.broadcasts,
      contacts: stores.contacts,
      contactProperties: stores.contactProperties,
      unsubscribe: {
        url: (claims) => unsubscribeLinks({ secret, publicUrl: publicUrl(), clock: Date }).url(claims),
      },
    },
    accept,
    sendIdempotency: eventSendIdempotency(accept, stores.idempotency, rt.redis),
    oauth: oauthComponents({ stores, publicUrl }),
    requestLogPolicy: logPolicy,
    requestLog:
      logPolicy.retentionMs > 0
        ? new RequestLogWriter(rt.redis, rt.keys, logPolicy, {
            onError: (err, lost) => log().warn({ err, lost }, 'request logs could not be written'),
            onDropped: (lost) => log().warn({ lost }, 'request logs dropped: the buffer is full'),
          })
        : undefined,
  };
}
