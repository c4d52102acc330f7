/**
 * sign: DKIM (RFC 6376) for every email whose from-domain is a domain of the team with keys,
 * after build-mime (the signature covers the final bytes; every retry signs afresh) and before
 * send. For such a domain it also
 *
 * - makes the envelope sender the email's VERP address under the domain's return-path
 *   subdomain, `bounces+<emailId>@send.<domain>`, once the domain is verified (its SPF policy
 *   and bounce MX are then published there: SPF passes and DSNs come back naming the email);
 * - puts the domain's TLS policy on the message, for a transport delivering straight to MX.
 *
 * An email from any other domain goes as build-mime left it. The keys come decrypted from the
 * `domains` port (cached per process); the signing itself is the `signer` port (packages/mailer).
 */
import type { OutgoingEmail } from '../ports.js';
import type { DeliverStage } from '../stage.js';
import { fromDomain } from '../../domains/sending.js';
import { formatVerp } from '../verp.js';

export const sign: DeliverStage<'messages' | 'content'> = {
  name: 'sign',
  needs: ['messages', 'content'],
  async run(ctx, deps) {
    if (!deps.domains || !deps.signer) return;
    const name = fromDomain(ctx.content.from);
    if (name === null) return;
    const domain = await deps.domains.forSending(ctx.job.teamId, name);
    if (!domain) return;
    const signer = deps.signer;
    const returnPath = domain.verified ? formatVerp(ctx.email.id, domain.returnPathDomain) : undefined;
    const signing = { domain: domain.name, keys: domain.keys };
    ctx.messages = await Promise.all(
      ctx.messages.map(async (message): Promise<OutgoingEmail> => {
        const signed: OutgoingEmail = { ...message, tls: domain.tls };
        if (returnPath) signed.envelope = { ...message.envelope, from: returnPath };
        if (domain.keys.length === 0) return signed;
        signed.raw = await signer.sign(message.raw, signing);
        if (message.asciiRaw) signed.asciiRaw = await signer.sign(message.asciiRaw, signing);
        return signed;
      }),
    );
  },
};
