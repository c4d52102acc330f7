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
import type { SMTPServerOptions } from 'smtp-server';
import { SMTPServer } from 'smtp-server';
import { newId, systemClock, type ReceivePorts, type ReportPorts } from '@petrel/core';
import { createMailauthAuthenticator } from '@petrel/mailer';
import { log, metrics, zeroSeries } from '@petrel/observability';
import { listen, type SmtpContext, type SmtpListener } from '../context.js';
import { smtpError } from '../smtp-data.js';
import { receiveMessage } from './receive.js';
import { inboundRouter } from './routing.js';

/** RCPT TO commands one message may carry (RFC 5321 section 4.5.3.1.8 asks for at least 100). */
const MAX_RECIPIENTS = 100;

export async function startInbound(ctx: SmtpContext): Promise<SmtpListener[]> {
  // the complaint series from start-up: the transactional complaint-rate alert reads increase()
  zeroSeries(metrics.complaints(), { lane: ['send', 'broadcast'], source: ['arf'] });
  const { config, rt } = ctx;
  const s = rt.stores;
  if (config.SMTP_INBOUND_PORT === 'off') return [];
  const defaultTeamId = await s.apiKeys.ensureDefaultTeam();
  const router = inboundRouter({
    domains: config.INBOUND_DOMAINS,
    bounceDomain: config.BOUNCE_DOMAIN,
    defaultTeamId,
    domainsStore: s.domains,
    inboxesStore: s.inboxes,
  });
  const known = new Set(await rt.redis.smembers(rt.keys.teams()));
  for (const teamId of router.teamIds()) {
    if (!known.has(teamId)) log().warn({ teamId }, 'INBOUND_DOMAINS names a team that does not exist');
  }
  const clock = systemClock;
  const ids = { newId: () => newId(), newEventId: () => newId() };
  // with a model endpoint, mail filed into an inbox whose agent has actions queues a run
  const agentRuns = config.INBOX_AGENT_URL ? rt.queues.inboxAgent : null;
  const receive: ReceivePorts = {
    inbound: s.inbound,
    inboxes: s.inboxes,
    ...(agentRuns && { agentRuns }),
    clock,
    ids,
  };
  const reports: ReportPorts = {
    // bounces and complaints count in the hourly counters, kept as the API and worker keep them
    emails: s.sentEmails,
    suppressions: s.suppressions,
    clock,
    ids,
    bounceDomain: config.BOUNCE_DOMAIN,
  };
  const maxBytes = config.SMTP_INBOUND_MAX_BYTES;
  // INBOUND_AUTH: SPF, DKIM, DMARC, ARC and BIMI of every message, looked up in DNS_SERVERS
  const auth =
    config.INBOUND_AUTH === 'on'
      ? {
          authenticator: createMailauthAuthenticator({
            servers: config.DNS_SERVERS,
            authservId: ctx.hostname,
          }),
          dmarcReject: config.INBOUND_DMARC_REJECT,
        }
      : undefined;

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
      receiveMessage({
        stream,
        session,
        maxBytes,
        router,
        reports,
        receive,
        byHost: ctx.hostname,
        ...(auth && { auth }),
      })
        .then((reply) =>
          reply.code === 250 ? callback(null, reply.message) : callback(smtpError(reply.code, reply.message)),
        )
        .catch((err: unknown) => {
          log().error({ err }, 'inbound message could not be stored');
          callback(smtpError(451, '4.3.0 Temporary failure, try again later'));
        });
    },
  };

  return [await listen('inbound', new SMTPServer(options), config.SMTP_INBOUND_PORT, ctx)];
}
