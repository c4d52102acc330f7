/**
 * The certificate the SMTP servers offer for STARTTLS and implicit TLS: the configured PEM
 * files, or a self-signed one generated at start for development. AUTH is only ever allowed
 * over TLS (RFC 4954 section 4), so even a development server needs one.
 */
import { generateKeyPairSync } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import selfsigned from 'selfsigned';
import { log } from '@petrel/observability';

export interface TlsMaterial {
  key: string | Buffer;
  cert: string | Buffer;
  /** True when generated at start (clients must skip verification or trust it). */
  selfSigned: boolean;
}

export async function loadTls(opts: {
  certPath?: string | undefined;
  keyPath?: string | undefined;
  hostname: string;
}): Promise<TlsMaterial> {
  if (opts.certPath || opts.keyPath) {
    if (!opts.certPath || !opts.keyPath)
      throw new Error('set both SMTP_TLS_CERT and SMTP_TLS_KEY, or neither');
    const [cert, key] = await Promise.all([readFile(opts.certPath), readFile(opts.keyPath)]);
    return { cert, key, selfSigned: false };
  }
  const generated = await selfSignedCertificate(opts.hostname);
  log().warn(
    { hostname: opts.hostname, fingerprint: generated.fingerprint },
    'SMTP_TLS_CERT/SMTP_TLS_KEY are unset: using a generated self-signed certificate (development only)',
  );
  return { cert: generated.cert, key: generated.key, selfSigned: true };
}

/** An ECDSA P-256 key (fast to make, unlike RSA) and a one-year certificate for `hostname`. */
async function selfSignedCertificate(
  hostname: string,
): Promise<{ cert: string; key: string; fingerprint: string }> {
  const pair = generateKeyPairSync('ec', {
    namedCurve: 'P-256',
    publicKeyEncoding: { type: 'spki', format: 'pem' },
    privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
  });
  const notBeforeDate = new Date(Date.now() - 60_000);
  const res = await selfsigned.generate([{ name: 'commonName', value: hostname }], {
    keyType: 'ec',
    curve: 'P-256',
    algorithm: 'sha256',
    keyPair: { privateKey: pair.privateKey, publicKey: pair.publicKey },
    notBeforeDate,
    notAfterDate: new Date(notBeforeDate.getTime() + 365 * 86_400_000),
    extensions: [
      { name: 'basicConstraints', cA: false },
      { name: 'extKeyUsage', serverAuth: true },
      {
        name: 'subjectAltName',
        altNames: [
          { type: 2, value: hostname },
          { type: 2, value: 'localhost' },
        ],
      },
    ],
  });
  return { cert: res.cert, key: res.private, fingerprint: res.fingerprint };
}
