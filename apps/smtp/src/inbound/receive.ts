/**
 * One message the inbound server took: refused when too large (552) or with a bare CR or LF
 * (554), else its recipients at the bounce domain or a return-path domain hand it to the report
 * processor (DSNs and ARF reports about sent emails: core's processReturnedMail, told which team
 * owns each return-path domain), and its recipients at receiving domains make a received email
 * for each team (core's receiveInbound), after the server's Received trace field (RFC 5321
 * section 4.4).
 */
import type { SMTPServerDataStream, SMTPServerSession } from 'smtp-server';
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
import { log } from '@petrel/observability';
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
      { raw: data.raw, envelopeRecipients: bounceRcpts, returnPathTeams },
      m.reports,
    );
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
      { raw: Buffer.concat([Buffer.from(trace), data.raw]), mailFrom, deliveries },
      m.receive,
    );
    log().info({ id, mailFrom, stored }, 'inbound email received');
  }
  return { code: 250, message: `2.0.0 Ok: queued as ${id}` };
}
