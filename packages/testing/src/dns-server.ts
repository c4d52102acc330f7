import type { AddressInfo } from 'node:net';
import dns2 from 'dns2';

// A small authoritative DNS server for tests: one zone-less store of records answering over UDP
// and TCP on 127.0.0.1 (same port for both, as resolvers retry truncated UDP answers over TCP —
// RFC 1035 §4.2.1, RFC 7766). It answers like a real authoritative server would, because the
// code under test (node:dns/promises, mailauth) distinguishes the cases:
//   - records of the asked type → NOERROR with them (aa=1);
//   - the name exists (holds other records, or is an empty non-terminal: a descendant exists)
//     but not that type → NOERROR with no answer (NODATA, RFC 2308 §2.2) → ENODATA;
//   - otherwise NXDOMAIN (rcode 3, RFC 1035 §4.1.1) → ENOTFOUND;
//   - a CNAME at the name answers every other type with the CNAME plus the target's records
//     (RFC 1034 §3.6.2);
//   - a name set to fail answers SERVFAIL (rcode 2) or nothing at all (a timeout).
// A TXT value longer than 255 bytes is split into several character-strings (RFC 1035 §3.3.14,
// RFC 7208 §3.3): a DKIM key does not fit in one, and resolvers reject an over-long string.

export type DnsRecordType = 'TXT' | 'MX' | 'A' | 'AAAA' | 'CNAME';

export interface DnsRecord {
  name: string;
  type: DnsRecordType;
  /** TXT text, MX exchange, A/AAAA address, CNAME target. */
  value: string;
  /** MX preference (default 10). */
  priority?: number;
  ttl?: number;
}

export type DnsFailure = 'SERVFAIL' | 'timeout';

export interface TestDnsServer {
  readonly host: string;
  readonly port: number;
  /** `127.0.0.1:<port>`: the form DNS_SERVERS and Resolver#setServers take. */
  readonly address: string;
  /** Adds one record (duplicates of the same name, type and value are kept once). */
  add(record: DnsRecord): void;
  /** Replaces every record of this name and type. */
  set(name: string, type: DnsRecordType, values: readonly string[], priority?: number): void;
  /** Removes the records of a name (of one type; of one value when given). */
  remove(name: string, type?: DnsRecordType, value?: string): void;
  /** Makes every query for the name fail this way until `clearFailure`. */
  fail(name: string, failure: DnsFailure): void;
  clearFailure(name: string): void;
  clear(): void;
  records(): DnsRecord[];
  /** Queries answered so far (name and type), for assertions. */
  readonly queries: Array<{ name: string; type: string }>;
  stop(): Promise<void>;
}

const { Packet } = dns2;
type Question = dns2.Packet.Question;
type Resource = dns2.Packet.Resource;

const TYPE_CODE: Record<DnsRecordType, number> = {
  A: Packet.TYPE.A,
  AAAA: Packet.TYPE.AAAA,
  CNAME: Packet.TYPE.CNAME,
  MX: Packet.TYPE.MX,
  TXT: Packet.TYPE.TXT,
};
const TYPE_NAME = new Map<number, string>(
  Object.entries(Packet.TYPE).map(([name, code]) => [code as number, name]),
);
const RCODE_SERVFAIL = 2;
const RCODE_NXDOMAIN = 3;
const ZONE_SOA = {
  primary: 'ns.petrel.test',
  admin: 'hostmaster.petrel.test',
  serial: 1,
  refresh: 3600,
  retry: 600,
  expiration: 86400,
  minimum: 0,
};

const canonical = (name: string): string => name.trim().replace(/\.$/, '').toLowerCase();

// Records published for mail authentication are ASCII, so 255 characters are 255 bytes.
function txtStrings(value: string): string[] {
  const parts: string[] = [];
  for (let at = 0; at < value.length; at += 255) parts.push(value.slice(at, at + 255));
  return parts.length > 0 ? parts : [''];
}

function resource(question: Question, owner: string, record: DnsRecord): Resource {
  const base = { name: owner, type: TYPE_CODE[record.type], class: Packet.CLASS.IN, ttl: record.ttl ?? 60 };
  switch (record.type) {
    case 'A':
    case 'AAAA':
      return Packet.createResourceFromQuestion(question, { ...base, address: record.value });
    case 'CNAME':
      return Packet.createResourceFromQuestion(question, { ...base, domain: record.value });
    case 'MX':
      return Packet.createResourceFromQuestion(question, {
        ...base,
        exchange: record.value,
        priority: record.priority ?? 10,
      });
    case 'TXT':
      return Packet.createResourceFromQuestion(question, { ...base, data: txtStrings(record.value) });
  }
}

export async function startDnsServer(): Promise<TestDnsServer> {
  const host = '127.0.0.1';
  let records: DnsRecord[] = [];
  const failures = new Map<string, DnsFailure>();
  const queries: Array<{ name: string; type: string }> = [];

  const at = (name: string): DnsRecord[] => records.filter((r) => canonical(r.name) === name);
  const exists = (name: string): boolean =>
    records.some((r) => {
      const owner = canonical(r.name);
      return owner === name || owner.endsWith(`.${name}`);
    });

  function answer(request: dns2.Packet): dns2.Packet | null {
    const response = Packet.createResponseFromRequest(request);
    response.header.aa = 1;
    response.header.ra = 0;
    const [question] = request.questions;
    if (!question) return response;
    const name = canonical(question.name);
    queries.push({ name, type: TYPE_NAME.get(question.type) ?? String(question.type) });
    const failure = failures.get(name);
    if (failure === 'timeout') return null;
    if (failure === 'SERVFAIL') {
      response.header.rcode = RCODE_SERVFAIL;
      return response;
    }
    // Follow a CNAME chain within the records held (bounded against loops).
    let owner = name;
    for (let hops = 0; hops < 8; hops++) {
      const here = at(owner);
      const wanted = here.filter((r) => TYPE_CODE[r.type] === question.type);
      if (wanted.length > 0) {
        for (const r of wanted) response.answers.push(resource(question, owner, r));
        return response;
      }
      const alias = here.find((r) => r.type === 'CNAME');
      if (!alias) break;
      response.answers.push(resource(question, owner, alias));
      owner = canonical(alias.value);
    }
    if (response.answers.length === 0 && !exists(owner)) response.header.rcode = RCODE_NXDOMAIN;
    if (response.answers.length === 0) {
      response.authorities.push(
        Packet.createResourceFromQuestion(question, {
          name: owner.split('.').slice(-2).join('.'),
          type: Packet.TYPE.SOA,
          class: Packet.CLASS.IN,
          ttl: 0,
          ...ZONE_SOA,
        }),
      );
    }
    return response;
  }

  const onRequest: dns2.DnsHandler = (request, send) => {
    let response: dns2.Packet | null;
    try {
      response = answer(request);
    } catch {
      response = Packet.createResponseFromRequest(request);
      response.header.rcode = RCODE_SERVFAIL;
    }
    if (response) void send(response).catch(() => undefined);
  };

  // UDP first on an ephemeral port, then TCP on the same number; retry if TCP's is taken.
  for (let attempt = 0; ; attempt++) {
    const udp = dns2.createUDPServer(onRequest);
    udp.on('requestError', () => undefined);
    await udp.listen(0, host);
    const port = (udp.address() as AddressInfo).port;
    const tcp = dns2.createTCPServer(onRequest);
    tcp.on('requestError', () => undefined);
    const listened = await new Promise<boolean>((resolve) => {
      tcp.once('error', () => resolve(false));
      tcp.listen(port, host, () => resolve(true));
    });
    if (!listened) {
      udp.close();
      if (attempt >= 10) throw new Error('startDnsServer: no port free for both UDP and TCP');
      continue;
    }
    const sockets = new Set<import('node:net').Socket>();
    tcp.on('connection', (socket) => {
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
    });

    return {
      host,
      port,
      address: `${host}:${port}`,
      queries,
      add(record) {
        const key = (r: DnsRecord) => `${canonical(r.name)}|${r.type}|${r.value}`;
        if (!records.some((r) => key(r) === key(record))) records.push({ ...record });
      },
      set(name, type, values, priority) {
        const owner = canonical(name);
        records = records.filter((r) => !(canonical(r.name) === owner && r.type === type));
        for (const value of values) records.push({ name: owner, type, value, priority });
      },
      remove(name, type, value) {
        const owner = canonical(name);
        records = records.filter(
          (r) =>
            !(
              canonical(r.name) === owner &&
              (type === undefined || r.type === type) &&
              (value === undefined || r.value === value)
            ),
        );
      },
      fail(name, failure) {
        failures.set(canonical(name), failure);
      },
      clearFailure(name) {
        failures.delete(canonical(name));
      },
      clear() {
        records = [];
        failures.clear();
      },
      records: () => records.map((r) => ({ ...r })),
      async stop() {
        for (const socket of sockets) socket.destroy();
        await Promise.all([
          new Promise<void>((resolve) => udp.close(() => resolve())),
          new Promise<void>((resolve) => tcp.close(() => resolve())),
        ]);
      },
    };
  }
}
