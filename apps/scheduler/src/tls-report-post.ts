/**
 * The `https:` transport of TLS reports (RFC 8460 section 5.3.2): one POST of the gzip JSON as
 * `application/tlsrpt+gzip`, resolved on a 2xx answer. The URI comes from a recipient domain's
 * DNS, so its address must be public (unless WEBHOOK_ALLOW_PRIVATE_NETWORKS): the name is
 * resolved once and the connection made to that checked address, with the name as SNI and Host.
 */
import { request } from 'node:https';
import { lookup as dnsLookup } from 'node:dns/promises';
import { rootCertificates } from 'node:tls';
import { isForbiddenDestination, type TlsReportDelivery } from '@petrel/core';

interface TlsReportPostOptions {
  /** Extra trusted CA (PEM) for `https:` rua (test-only MTA_STS_CA_FILE). */
  extraCa?: string | undefined;
  /** WEBHOOK_ALLOW_PRIVATE_NETWORKS: a `https:` rua may be on a private network. */
  allowPrivateNetworks: boolean;
  timeoutMs?: number;
}

const DEFAULT_TIMEOUT_MS = 30_000;

/** POSTs the gzip report; resolves on a 2xx answer. */
export async function postTlsReport(
  uri: string,
  report: TlsReportDelivery,
  s: TlsReportPostOptions,
): Promise<void> {
  const url = new URL(uri);
  const host = url.hostname.replace(/^\[|\]$/g, '');
  const { address } = await dnsLookup(host);
  // the URI comes from a recipient domain's DNS: never a way into our own network
  if (isForbiddenDestination(address, { allowPrivateNetworks: s.allowPrivateNetworks }))
    throw new Error(`${uri}: ${address} is not a public address`);
  await new Promise<void>((resolve, reject) => {
    const req = request(
      {
        host: address,
        port: url.port === '' ? 443 : Number(url.port),
        path: `${url.pathname}${url.search}`,
        method: 'POST',
        servername: host,
        headers: {
          host: url.host,
          'content-type': 'application/tlsrpt+gzip',
          'content-length': report.gzip.length,
        },
        ...(s.extraCa !== undefined && { ca: [...rootCertificates, s.extraCa] }),
        timeout: s.timeoutMs ?? DEFAULT_TIMEOUT_MS,
        agent: false,
      },
      (res) => {
        res.resume();
        const status = res.statusCode ?? 0;
        if (status >= 200 && status < 300) resolve();
        else reject(new Error(`${uri} answered HTTP ${status}`));
      },
    );
    req.on('timeout', () => req.destroy(new Error(`${uri}: timed out`)));
    req.on('error', reject);
    req.end(report.gzip);
  });
}
