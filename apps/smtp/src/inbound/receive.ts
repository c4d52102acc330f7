/**
 * One message the inbound server took: refused when too large (552) or with a bare CR or LF
 * (554), else its recipients at the bounce domain or a return-path domain hand it to the report
 * processor (DSNs and ARF reports about sent emails: core's processReturnedMail, told which team
 * owns each return-path domain), and its recipients at receiving domains make a received email
 * for each team (core's receiveInbound), after the server's Received trace field (RFC 5321
 * section 4.4).
 *
 * With INBOUND_AUTH=on the message is first checked (core's MessageAuthenticator: SPF, DKIM,
 * DMARC, ARC, BIMI): a DMARC failure under `p=reject` is refused with 550 when
 * INBOUND_DMARC_REJECT (core's dmarcRefusal), reports carry the results (core's report rule
 * decides whether they may act), and a received email gets the Authentication-Results field at
 * its top (RFC 8601 section 5) and the results on its record.
 */
import type { SMTPServerDataStream, SMTPServerSession } from 'smtp-server';
import {
  BARE_LINE_ENDING_MESSAGE,
  dmarcRefusal,
  newId,
  processReturnedMail,
  receiveInbound,
  receivedHeader,
  type InboundDelivery,
  type MessageAuthenticator,
  type ReceivePorts,
  type ReportPorts,
  withoutForgedAuthResults,
} from '@petrel/core';
import { log, metrics } from '@petrel/observability';
import { readData } from '../smtp-data.js';
import type { inboundRouter } from './routing.js';

export async function receiveMessage(m: {
  stream: SMTPServerDataStream;
  session: SMTPServerSession;
  maxBytes: number;
  router: ReturnType<typeof inboundRouter>;
  reports: ReportPorts;
  receive: ReceivePorts;
  /** This server's name in the Received field. */
  byHost: string;
  /** INBOUND_AUTH=on: the checks, and whether a DMARC `p=reject` failure is refused. */
  auth?: { authenticator: MessageAuthenticator; dmarcReject: boolean };
}): Promise<{ code: number; message: string }> {
  const { stream, session, maxBytes } = m;
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
  const checked = m.auth
    ? await m.auth.authenticator.authenticate(data.raw, {
        ip: session.remoteAddress,
        helo: session.hostNameAppearsAs ?? '',
        mailFrom,
      })
    : null;
  const refusal = checked && m.auth!.dmarcReject ? dmarcRefusal(checked.results) : null;
  if (refusal !== null) {
    log().info(
      { ip: session.remoteAddress, mailFrom, dmarc: checked!.results.dmarc },
      'inbound message refused by DMARC',
    );
    return { code: 550, message: refusal };
  }
  const bounceRcpts: string[] = [];
  const returnPathTeams = new Map<string, string>();
  const byTeam = new Map<string, string[]>();
  for (const a of rcpts) {
    const route = await m.router.route(a);
    if (route?.kind === 'bounce') {
      bounceRcpts.push(a);
      if (route.returnPath) returnPathTeams.set(route.returnPath.domain, route.returnPath.teamId);
    } else if (route?.kind === 'receive') byTeam.set(route.teamId, [...(byTeam.get(route.teamId) ?? []), a]);
  }
  const id = newId();
  if (bounceRcpts.length > 0) {
    const outcome = await processReturnedMail(
      {
        raw: data.raw,
        envelopeRecipients: bounceRcpts,
        returnPathTeams,
        ...(checked && { authentication: checked.results }),
      },
      m.reports,
    );
    if (outcome.kind === 'complained') metrics.complaints().inc({ lane: outcome.lane, source: 'arf' });
    log().info({ id, mailFrom, outcome }, 'report at the bounce domain processed');
  }
  if (byTeam.size > 0) {
    const trace = receivedHeader({
      helo: session.hostNameAppearsAs ?? '',
      clientIp: session.remoteAddress,
      byHost: m.byHost,
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
      {
        // ours on top; one arriving under our name is forged and removed (RFC 8601 section 5)
        raw: checked
          ? Buffer.concat([Buffer.from(checked.header + trace), withoutForgedAuthResults(data.raw, m.byHost)])
          : Buffer.concat([Buffer.from(trace), data.raw]),
        mailFrom,
        deliveries,
        ...(checked && { authentication: checked.results }),
      },
      m.receive,
    );
    log().info({ id, mailFrom, stored }, 'inbound email received');
  }
  return { code: 250, message: `2.0.0 Ok: queued as ${id}` };
}
