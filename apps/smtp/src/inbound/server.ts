/**
 * The inbound (MX) server: SMTP_INBOUND_PORT, no AUTH, STARTTLS offered with the app's
 * certificate (configured, or generated for development). It takes mail for the receiving
 * domains (INBOUND_DOMAINS), for BOUNCE_DOMAIN and for the return-path subdomains of the teams'
 * sending domains (`send.example.com`, routing in core's inbound-routing.ts), and refuses every
 * other recipient at RCPT with 550: it relays nothing.
 *
 * A message's recipients at the bounce domain or a return-path domain hand it to the report
 * processor (DSNs and ARF reports about sent emails: core's processReturnedMail, told which
 * team owns each return-path domain); its recipients at receiving domains
 * make a received email for each team (core's receiveInbound), after the server's Received
 * trace field (RFC 5321 section 4.4). A report that matches no email is still accepted and
 * dropped (refusing it would send a bounce of the bounce back to a server that cannot act on it).
 *
 * Smuggling-safe like submission: DATA with a bare CR or LF is refused (554) before anything is
 * parsed, so `<LF>.<CR><LF>` inside a message can never end it early for a parser and start a
 * second one; and the size limit is advertised (SIZE, RFC 1870) and enforced (552).
 */
import type { SMTPServerDataStream, SMTPServerOptions, SMTPServerSession } from 'smtp-server';
import { SMTPServer } from 'smtp-server';
import { inboundRetentionMs, emailRetentionMs, emailStoreOptions } from '@petrel/config';
import {
  BARE_LINE_ENDING_MESSAGE,
  newId,
  processReturnedMail,
  receiveInbound,
  receivedHeader,
  type InboundDelivery,
  type ReceivePorts,
  type ReportPorts,
} from '@petrel/core';
import {
  ApiKeysStore,
  DomainsStore,
  EmailsStore,
  InboundStore,
  InboxesStore,
  SentEmailsLocator,
  SuppressionsStore,
} from '@petrel/store';
import { InboxAgentQueue } from '@petrel/queue';
import { log } from '@petrel/observability';
import type { SmtpContext, SmtpListener } from '../context.js';
import { readData, smtpError } from '../smtp-data.js';
import { listen } from '../submission/server.js';
import { inboundRouter } from './routing.js';

/** RCPT TO commands one message may carry (RFC 5321 section 4.5.3.1.8 asks for at least 100). */
const MAX_RECIPIENTS = 100;

export async function startInbound(
  ctx: SmtpContext,
  into: { listeners: SmtpListener[]; cleanups: (() => Promise<void>)[] },
): Promise<void> {
  const { config } = ctx;
  if (config.SMTP_INBOUND_PORT === 'off') return;
  const defaultTeamId = await new ApiKeysStore(ctx.redis, ctx.keys).ensureDefaultTeam();
  const router = inboundRouter({
    domains: config.INBOUND_DOMAINS,
    bounceDomain: config.BOUNCE_DOMAIN,
    defaultTeamId,
    domainsStore: new DomainsStore(ctx.redis, ctx.keys),
    inboxesStore: new InboxesStore(ctx.redis, ctx.keys),
  });
  const known = new Set(await ctx.redis.smembers(ctx.keys.teams()));
  for (const teamId of router.teamIds()) {
    if (!known.has(teamId)) log().warn({ teamId }, 'INBOUND_DOMAINS names a team that does not exist');
  }
  const clock = { now: () => Date.now(), monotonicMs: () => performance.now() };
  const ids = { newId: () => newId(), newEventId: () => newId() };
  // with a model endpoint, mail filed into an inbox whose agent has actions queues a run
  const agentRuns = config.INBOX_AGENT_URL
    ? new InboxAgentQueue(ctx.redis, { prefix: ctx.keys.bullPrefix() })
    : null;
  if (agentRuns) into.cleanups.push(() => agentRuns.close());
  const receive: ReceivePorts = {
    inbound: new InboundStore(ctx.redis, ctx.keys, inboundRetentionMs(config)),
    inboxes: new InboxesStore(ctx.redis, ctx.keys),
    ...(agentRuns && { agentRuns }),
    clock,
    ids,
  };
  const reports: ReportPorts = {
    emails: new SentEmailsLocator(
      ctx.redis,
      ctx.keys,
      // bounces and complaints count in the hourly counters, kept as the API and worker keep them
      new EmailsStore(ctx.redis, ctx.keys, emailRetentionMs(config), emailStoreOptions(config)),
    ),
    suppressions: new SuppressionsStore(ctx.redis, ctx.keys),
    clock,
    ids,
    bounceDomain: config.BOUNCE_DOMAIN,
  };
  const maxBytes = config.SMTP_INBOUND_MAX_BYTES;

  const options: SMTPServerOptions = {
    name: ctx.hostname,
    banner: 'Petrel ESMTP',
    key: ctx.tls.key,
    cert: ctx.tls.cert,
    size: maxBytes,
    authOptional: true,
    disabledCommands: ['AUTH'],
    logger: false,
    closeTimeout: 10_000,
    onRcptTo(address, session, callback) {
      if (session.envelope.rcptTo.length >= MAX_RECIPIENTS) {
        return callback(smtpError(452, `4.5.3 Too many recipients (at most ${MAX_RECIPIENTS} per message)`));
      }
      router.route(address.address).then(
        (route) =>
          route === null
            ? callback(smtpError(550, `5.7.1 <${address.address}>: Relay access denied`))
            : callback(),
        (err: unknown) => {
          log().error({ err }, 'inbound recipient could not be routed');
          callback(smtpError(451, '4.3.0 Temporary failure, try again later'));
        },
      );
    },
    onData(stream, session, callback) {
      handle(stream, session)
        .then((reply) =>
          reply.code === 250 ? callback(null, reply.message) : callback(smtpError(reply.code, reply.message)),
        )
        .catch((err: unknown) => {
          log().error({ err }, 'inbound message could not be stored');
          callback(smtpError(451, '4.3.0 Temporary failure, try again later'));
        });
    },
  };

  async function handle(
    stream: SMTPServerDataStream,
    session: SMTPServerSession,
  ): Promise<{ code: number; message: string }> {
    const data = await readData(stream, maxBytes);
    if (data === 'too_large')
      return { code: 552, message: `5.3.4 Message too big (at most ${maxBytes} bytes)` };
    if (data.bare) {
      log().warn(
        { ip: session.remoteAddress, bare: data.bare },
        'inbound message with a bare CR or LF refused',
      );
      return { code: 554, message: BARE_LINE_ENDING_MESSAGE };
    }
    const rcpts = session.envelope.rcptTo.map((r) => r.address);
    const mailFrom = session.envelope.mailFrom ? session.envelope.mailFrom.address || null : null;
    const bounceRcpts: string[] = [];
    const returnPathTeams = new Map<string, string>();
    const byTeam = new Map<string, string[]>();
    for (const a of rcpts) {
      const route = await router.route(a);
      if (route?.kind === 'bounce') {
        bounceRcpts.push(a);
        if (route.returnPath) returnPathTeams.set(route.returnPath.domain, route.returnPath.teamId);
      } else if (route?.kind === 'receive')
        byTeam.set(route.teamId, [...(byTeam.get(route.teamId) ?? []), a]);
    }
    const id = newId();
    if (bounceRcpts.length > 0) {
      const outcome = await processReturnedMail(
        { raw: data.raw, envelopeRecipients: bounceRcpts, returnPathTeams },
        reports,
      );
      log().info({ id, mailFrom, outcome }, 'report at the bounce domain processed');
    }
    if (byTeam.size > 0) {
      const trace = receivedHeader({
        helo: session.hostNameAppearsAs ?? '',
        clientIp: session.remoteAddress,
        byHost: ctx.hostname,
        id,
        tls: session.secure,
        recipients: rcpts,
        date: new Date(),
      });
      const deliveries: InboundDelivery[] = [...byTeam].map(([teamId, recipients]) => ({
        teamId,
        recipients,
      }));
      const stored = await receiveInbound(
        { raw: Buffer.concat([Buffer.from(trace), data.raw]), mailFrom, deliveries },
        receive,
      );
      log().info({ id, mailFrom, stored }, 'inbound email received');
    }
    return { code: 250, message: `2.0.0 Ok: queued as ${id}` };
  }

  const listener = await listen('inbound', new SMTPServer(options), config.SMTP_INBOUND_PORT, ctx);
  into.listeners.push(listener);
}
