/**
 * A certificate authority of the tests' own (selfsigned, EC P-256): a local MTA-STS policy
 * server, TLS sinks and a TLS-RPT receiver present certificates it issued, and the code under
 * test trusts it as an extra CA (MTA_STS_CA_FILE) — exactly as it trusts the web PKI in
 * production. A certificate for another name, or one the CA never issued, is the "bad" case.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isIP } from 'node:net';
import selfsigned from 'selfsigned';

export interface TestCertificate {
  key: string;
  cert: string;
}

export interface TestCa extends TestCertificate {
  /** The CA certificate written to a file, for MTA_STS_CA_FILE. */
  file: string;
  /** A server certificate for these DNS names / IP addresses, signed by this CA. */
  issue(names: readonly string[]): Promise<TestCertificate>;
}

const SIGNING = { keyType: 'ec', curve: 'P-256', algorithm: 'sha256' } as const;

function validity(): { notBeforeDate: Date; notAfterDate: Date } {
  const notBeforeDate = new Date(Date.now() - 60_000);
  return { notBeforeDate, notAfterDate: new Date(notBeforeDate.getTime() + 7 * 86_400_000) };
}

/** A certificate no test CA issued (self-signed): untrusted wherever it is shown. */
export async function selfSignedCertificate(names: readonly string[]): Promise<TestCertificate> {
  const res = await selfsigned.generate([{ name: 'commonName', value: names[0]! }], {
    ...SIGNING,
    ...validity(),
    extensions: serverExtensions(names),
  });
  return { key: res.private, cert: res.cert };
}

type Extensions = NonNullable<Parameters<typeof selfsigned.generate>[1]>['extensions'];

/** A server certificate's extensions: its names as DNS (type 2) and IP (type 7) alt names. */
function serverExtensions(names: readonly string[]): Extensions {
  return [
    { name: 'basicConstraints', cA: false },
    { name: 'extKeyUsage', serverAuth: true },
    {
      name: 'subjectAltName',
      altNames: names.map((n) => (isIP(n) !== 0 ? { type: 7, ip: n } : { type: 2, value: n })),
    },
  ];
}

export async function createTestCa(): Promise<TestCa> {
  const ca = await selfsigned.generate([{ name: 'commonName', value: 'Petrel Test CA' }], {
    ...SIGNING,
    ...validity(),
    extensions: [
      { name: 'basicConstraints', cA: true, critical: true },
      { name: 'keyUsage', keyCertSign: true, cRLSign: true, critical: true },
    ],
  });
  const file = join(mkdtempSync(join(tmpdir(), 'petrel-ca-')), 'ca.pem');
  writeFileSync(file, ca.cert);
  return {
    key: ca.private,
    cert: ca.cert,
    file,
    async issue(names) {
      const res = await selfsigned.generate([{ name: 'commonName', value: names[0]! }], {
        ...SIGNING,
        ...validity(),
        ca: { key: ca.private, cert: ca.cert },
        extensions: serverExtensions(names),
      });
      return { key: res.private, cert: res.cert };
    },
  };
}
