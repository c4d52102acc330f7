/**
 * The SSRF guard of remote attachments: the private-address corpus is refused before any connection
 * (a canary listener on 127.0.0.1 counts them), DNS answers are vetted once and pinned, redirects
 * are not followed, and real fetches (allowed private networks, as in the dev profile) return the
 * content within the size and time limits.
 *
 * Only 127.0.0.1 is ever connected to: every refused-case fetch also carries a `connect` hook
 * that throws for any other address, so even a broken guard cannot send traffic elsewhere.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createServer as createTlsServer } from 'node:tls';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { LIMITS, PetrelError, type EmailContent } from '@petrel/contracts';
import { fetchAttachments, prepareWith } from '@petrel/core';
import { emailContent } from '@petrel/testing';
import {
  createAttachmentFetcher,
  fetchRemoteAttachment,
  type ConnectTarget,
  type FetchAttachmentOptions,
} from './fetch-attachment.js';

interface Listener {
  server: Server;
  port: number;
  connections: number;
  requests: { url: string; host: string | undefined }[];
}

async function listen(handler: (req: IncomingMessage, res: ServerResponse) => void): Promise<Listener> {
  const server = createServer(handler);
  const l: Listener = { server, port: 0, connections: 0, requests: [] };
  server.on('connection', () => l.connections++);
  server.on('request', (req: IncomingMessage) =>
    l.requests.push({ url: req.url ?? '', host: req.headers.host }),
  );
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  l.port = (server.address() as AddressInfo).port;
  return l;
}

async function close(l: Listener): Promise<void> {
  l.server.closeAllConnections();
  await new Promise<void>((resolve) => l.server.close(() => resolve()));
}

/** Test DNS: never touches the network. */
const DNS: Record<string, string[]> = {
  localhost: ['127.0.0.1', '::1'],
  'localhost.': ['127.0.0.1'],
  'metadata.google.internal': ['169.254.169.254'],
  'evil.test': ['127.0.0.1'],
  'mixed.test': ['93.184.216.34', '127.0.0.1'],
  'ten.test': ['10.0.0.5'],
};
const testLookup = async (host: string): Promise<string[]> => {
  const found = DNS[host];
  if (!found) throw Object.assign(new Error(`ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
  return found;
};

/** Records every connection attempt and lets through only those to 127.0.0.1. */
function connectGuard() {
  const seen: ConnectTarget[] = [];
  const hook = (t: ConnectTarget) => {
    seen.push(t);
    if (t.address !== '127.0.0.1') throw new Error(`test blocked a connection to ${t.address}`);
  };
  return { seen, hook };
}

async function refusal(promise: Promise<unknown>): Promise<PetrelError> {
  try {
    await promise;
  } catch (err) {
    expect(err).toBeInstanceOf(PetrelError);
    return err as PetrelError;
  }
  throw new Error('expected the fetch to be refused');
}

describe('SSRF guard (allowPrivate: false)', () => {
  /** The refusal of a public-only fetch of `url` (at most 1000 bytes within 2 s unless `over` says otherwise). */
  const refusedFetch = (url: string, over: Partial<FetchAttachmentOptions> = {}) =>
    refusal(fetchRemoteAttachment(url, { allowPrivate: false, maxBytes: 1000, timeoutMs: 2_000, ...over }));
  let canary: Listener;
  beforeAll(async () => {
    canary = await listen((_req, res) => res.end('canary'));
  });
  afterAll(async () => close(canary));

  const corpus = (p: number): string[] => [
    `http://127.0.0.1:${p}/`,
    `http://127.0.0.1:${p}/file.pdf?x=1`,
    `http://127.1:${p}/`,
    `http://localhost:${p}/`,
    `http://LOCALHOST.:${p}/`,
    `http://[::1]:${p}/`,
    `http://0.0.0.0:${p}/`,
    `http://0:${p}/`,
    `http://169.254.169.254:${p}/latest/meta-data/`,
    `http://metadata.google.internal:${p}/computeMetadata/v1/`,
    `http://10.0.0.1:${p}/`,
    `http://10.255.255.254:${p}/`,
    `http://172.16.0.1:${p}/`,
    `http://172.31.255.254:${p}/`,
    `http://192.168.0.1:${p}/`,
    `http://192.168.1.254:${p}/`,
    `http://100.64.0.1:${p}/`,
    `http://100.127.0.1:${p}/`,
    `http://192.0.0.1:${p}/`,
    `http://198.18.0.1:${p}/`,
    `http://224.0.0.1:${p}/`,
    `http://240.0.0.1:${p}/`,
    `http://255.255.255.255:${p}/`,
    `http://192.0.2.1:${p}/`,
    `http://198.51.100.1:${p}/`,
    `http://203.0.113.1:${p}/`,
    `http://192.88.99.1:${p}/`,
    `http://[2001:db8::1]:${p}/`,
    `http://[::ffff:192.0.2.1]:${p}/`,
    `http://[fc00::1]:${p}/`,
    `http://[fd00::1]:${p}/`,
    `http://[fe80::1]:${p}/`,
    `http://[ff02::1]:${p}/`,
    `http://[::]:${p}/`,
    `http://[::ffff:127.0.0.1]:${p}/`,
    `http://[::ffff:7f00:1]:${p}/`,
    `http://[::ffff:169.254.169.254]:${p}/`,
    `http://[::127.0.0.1]:${p}/`,
    `http://[64:ff9b::127.0.0.1]:${p}/`,
    `http://[2002:7f00:1::1]:${p}/`,
    `http://2130706433:${p}/`,
    `http://0x7f.1:${p}/`,
    `http://017700000001:${p}/`,
    `http://0x7f000001:${p}/`,
    `http://0177.0.0.1:${p}/`,
    `http://%31%32%37.0.0.1:${p}/`,
    `http://user:pass@127.0.0.1:${p}/`,
    `https://127.0.0.1:${p}/`,
    `https://localhost:${p}/`,
    `http://evil.test:${p}/`,
    `http://mixed.test:${p}/`,
    `http://ten.test:${p}/`,
  ];

  it('refuses every URL of the corpus (≥ 40) and the canary sees 0 connections', async () => {
    const urls = corpus(canary.port);
    expect(urls.length).toBeGreaterThanOrEqual(40);
    const guard = connectGuard();
    for (const url of urls) {
      const err = await refusedFetch(url, {
        maxBytes: LIMITS.attachmentsTotalBytes,
        lookup: testLookup,
        field: 'attachments[0].path',
        connect: guard.hook,
      });
      expect(err.errorName, url).toBe('invalid_attachment');
      expect(err.statusCode).toBe(422);
      expect(err.message, url).toMatch(/^attachments\[0\]\.path: .*private or reserved network address/);
    }
    expect(guard.seen).toEqual([]);
    expect(canary.connections).toBe(0);
  });

  it('refuses localhost through the system resolver too', async () => {
    const guard = connectGuard();
    const err = await refusedFetch(`http://localhost:${canary.port}/`, { connect: guard.hook });
    expect(err.message).toBe(
      'path: localhost resolves to a private or reserved network address; only public hosts can be fetched',
    );
    expect(guard.seen).toEqual([]);
    expect(canary.connections).toBe(0);
  });

  it('refuses a name whose injected resolver answers 127.0.0.1, without naming the address', async () => {
    const err = await refusedFetch(`http://evil.test:${canary.port}/x.pdf`, {
      lookup: async () => ['127.0.0.1'],
      field: 'attachments[0].path',
    });
    expect(err.message).toBe(
      'attachments[0].path: evil.test resolves to a private or reserved network address; only public hosts can be fetched',
    );
    expect(canary.connections).toBe(0);
  });

  it('resolves once and connects to the vetted address under DNS rebinding', async () => {
    let calls = 0;
    const rebinding = async () => (++calls === 1 ? ['93.184.216.34'] : ['127.0.0.1']);
    const seen: ConnectTarget[] = [];
    const err = await refusedFetch(`http://rebind.test:${canary.port}/a.pdf`, {
      lookup: rebinding,
      field: 'attachments[0].path',
      // Stand-in for the network: record where the socket would go, and go nowhere.
      connect: (t) => {
        seen.push(t);
        throw new PetrelError('invalid_attachment', 'attachments[0].path: blocked by the test');
      },
    });
    expect(err.message).toBe('attachments[0].path: blocked by the test');
    expect(calls).toBe(1);
    expect(seen).toEqual([{ address: '93.184.216.34', family: 4, port: canary.port, host: 'rebind.test' }]);
    expect(canary.connections).toBe(0);
  });

  it('refuses other schemes and unparsable URLs without connecting', async () => {
    for (const url of ['file:///etc/passwd', 'ftp://127.0.0.1/x', 'gopher://127.0.0.1:70/_x', 'not a url']) {
      const err = await refusedFetch(url, { timeoutMs: 1_000, lookup: testLookup });
      expect(err.message).toMatch(/^path: must be an http or https URL/);
    }
    expect(canary.connections).toBe(0);
  });

  it('reports a name that does not resolve', async () => {
    const err = await refusedFetch('http://nowhere.test/', { timeoutMs: 1_000, lookup: testLookup });
    expect(err.message).toBe('path: could not resolve nowhere.test (ENOTFOUND)');
  });

  it('times out a resolver that never answers', async () => {
    const err = await refusedFetch('http://slow.test/', {
      timeoutMs: 100,
      lookup: () => new Promise<string[]>(() => undefined),
    });
    expect(err.message).toBe('path: timed out after 0.1 s');
  });
});

describe('fetching (allowPrivate: true, the dev profile)', () => {
  let files: Listener;
  let target: Listener;
  let hang: Listener;
  const big = Buffer.alloc(256 * 1024, 7);
  let bigSent = 0;
  /** Settles when the last /stream.bin response closes: true when it closed before its end. */
  let bigCut: Promise<boolean> = Promise.resolve(false);

  beforeAll(async () => {
    target = await listen((_req, res) => res.end('redirect target'));
    hang = await listen(() => undefined); // accepts, never answers
    files = await listen((req, res) => {
      const path = (req.url ?? '').split('?')[0];
      if (path === '/docs/report%20Q1.pdf') {
        res.writeHead(200, { 'content-type': 'application/pdf' });
        res.end(Buffer.from('%PDF-1.4 fake'));
      } else if (path === '/plain') {
        res.writeHead(200, { 'content-type': 'text/plain; charset=utf-8' });
        res.end('hello');
      } else if (path === '/bad-type/') {
        res.writeHead(200, { 'content-type': 'not a media type' });
        res.end('x');
      } else if (path === '/declared-too-big.bin') {
        res.writeHead(200, { 'content-length': String(LIMITS.attachmentsTotalBytes + 1) });
        res.write('a'); // the client must refuse from the header alone
      } else if (path === '/stream.bin') {
        // chunked, no Content-Length: the client must count and stop
        res.writeHead(200, { 'content-type': 'application/octet-stream' });
        bigCut = new Promise((resolve) => res.once('close', () => resolve(!res.writableFinished)));
        const push = () => {
          while (bigSent < big.length * 64) {
            bigSent += big.length;
            if (!res.write(big)) return void res.once('drain', push);
          }
          res.end();
        };
        res.on('error', () => undefined);
        push();
      } else if (path === '/redirect') {
        res.writeHead(302, { location: `http://127.0.0.1:${target.port}/` });
        res.end();
      } else if (path === '/gzip') {
        res.writeHead(200, { 'content-encoding': 'gzip' });
        res.end('x');
      } else {
        res.writeHead(404);
        res.end();
      }
    });
  });
  afterAll(async () => {
    await Promise.all([close(files), close(target), close(hang)]);
  });
  afterEach(() => {
    bigSent = 0;
  });

  const opts = (over: Partial<FetchAttachmentOptions> = {}): FetchAttachmentOptions => ({
    allowPrivate: true,
    maxBytes: LIMITS.attachmentsTotalBytes,
    timeoutMs: 5_000,
    field: 'attachments[0].path',
    ...over,
  });

  it('still refuses the special-purpose blocks that are no private network (TEST-NETs, 6to4 relay anycast)', async () => {
    const guard = connectGuard();
    for (const ip of ['192.0.2.1', '198.51.100.1', '203.0.113.1', '192.88.99.1']) {
      const err = await refusal(
        fetchRemoteAttachment(`http://${ip}:${files.port}/plain`, opts({ connect: guard.hook })),
      );
      expect(err.message, ip).toContain(
        `attachments[0].path: ${ip} is a private or reserved network address (`,
      );
    }
    expect(guard.seen).toEqual([]);
  });

  it('returns the content, its type and a file name from the URL', async () => {
    const got = await fetchRemoteAttachment(
      `http://127.0.0.1:${files.port}/docs/report%20Q1.pdf?sig=abc`,
      opts(),
    );
    expect(got.content.toString()).toBe('%PDF-1.4 fake');
    expect(got.contentType).toBe('application/pdf');
    expect(got.filename).toBe('report Q1.pdf');
    expect(files.requests.at(-1)).toEqual({
      url: '/docs/report%20Q1.pdf?sig=abc',
      host: `127.0.0.1:${files.port}`,
    });
  });

  it('keeps media type parameters and drops a malformed type and an empty name', async () => {
    const plain = await fetchRemoteAttachment(`http://127.0.0.1:${files.port}/plain`, opts());
    expect(plain).toEqual({
      content: Buffer.from('hello'),
      contentType: 'text/plain; charset=utf-8',
      filename: 'plain',
    });
    const bad = await fetchRemoteAttachment(`http://127.0.0.1:${files.port}/bad-type/`, opts());
    expect(bad).toEqual({ content: Buffer.from('x') });
  });

  it('connects to the address the injected resolver gave, with the original Host header', async () => {
    let calls = 0;
    const got = await fetchRemoteAttachment(
      `http://pinned.test:${files.port}/plain`,
      opts({ lookup: async () => (++calls === 1 ? ['127.0.0.1'] : ['10.9.9.9']) }),
    );
    expect(got.content.toString()).toBe('hello');
    expect(calls).toBe(1);
    expect(files.requests.at(-1)?.host).toBe(`pinned.test:${files.port}`);
  });

  it('over https, sends the original name as SNI to the vetted address', async () => {
    const sni: string[] = [];
    const tlsServer = createTlsServer({
      SNICallback: (name, cb) => {
        sni.push(name);
        cb(new Error('no certificate in this test'));
      },
    });
    tlsServer.on('tlsClientError', () => undefined);
    await new Promise<void>((resolve) => tlsServer.listen(0, '127.0.0.1', resolve));
    const port = (tlsServer.address() as AddressInfo).port;
    try {
      const err = await refusal(
        fetchRemoteAttachment(
          `https://pinned.test:${port}/a.pdf`,
          opts({ lookup: async () => ['127.0.0.1'] }),
        ),
      );
      expect(err.message).toMatch(/^attachments\[0\]\.path: could not fetch the URL/);
      expect(sni).toEqual(['pinned.test']);
    } finally {
      await new Promise<void>((resolve) => tlsServer.close(() => resolve()));
    }
  });

  it('refuses a declared size above the 40 MB limit without reading the body', async () => {
    const err = await refusal(
      fetchRemoteAttachment(`http://127.0.0.1:${files.port}/declared-too-big.bin`, opts()),
    );
    expect(err.message).toBe(
      'attachments[0].path: the content is larger than the 40 MB limit on the attachments of an email',
    );
  });

  it('stops reading a stream beyond maxBytes', async () => {
    const err = await refusal(
      fetchRemoteAttachment(`http://127.0.0.1:${files.port}/stream.bin`, opts({ maxBytes: 300_000 })),
    );
    expect(err.message).toBe(
      'attachments[0].path: the content is larger than 300000 bytes, what is left of the 40 MB limit on the attachments of an email',
    );
    // the server was cut off, not drained: its response closed before the end
    expect(await bigCut).toBe(true);
    expect(bigSent).toBeLessThan(big.length * 64);
  });

  it('does not follow a 302: the redirect target sees 0 requests', async () => {
    const err = await refusal(fetchRemoteAttachment(`http://127.0.0.1:${files.port}/redirect`, opts()));
    expect(err.message).toBe(
      'attachments[0].path: the server answered 302 (a redirect); redirects are not followed',
    );
    expect(target.connections).toBe(0);
    expect(target.requests).toEqual([]);
  });

  it('refuses error statuses and encoded content', async () => {
    const missing = await refusal(fetchRemoteAttachment(`http://127.0.0.1:${files.port}/missing`, opts()));
    expect(missing.message).toBe('attachments[0].path: the server answered 404');
    const gz = await refusal(fetchRemoteAttachment(`http://127.0.0.1:${files.port}/gzip`, opts()));
    expect(gz.message).toMatch(/gzip-encoded content/);
  });

  it('times out a server that never answers', async () => {
    const started = Date.now();
    const err = await refusal(
      fetchRemoteAttachment(`http://127.0.0.1:${hang.port}/x`, opts({ timeoutMs: 300 })),
    );
    expect(err.message).toBe('attachments[0].path: timed out after 0.3 s');
    expect(Date.now() - started).toBeLessThan(2_000);
  });

  it('reports a refused connection', async () => {
    const closed = await listen(() => undefined);
    const port = closed.port;
    await close(closed);
    const err = await refusal(fetchRemoteAttachment(`http://127.0.0.1:${port}/x`, opts()));
    expect(err.message).toBe('attachments[0].path: could not fetch the URL (ECONNREFUSED)');
  });

  describe('the acceptance stage over this fetcher (fetchAttachments)', () => {
    const email = (attachments: EmailContent['attachments']) => emailContent({ attachments });
    const single = { teamId: 'team', index: 0, batch: false };
    const stage = (allowPrivate: boolean, timeoutMs?: number) =>
      fetchAttachments(createAttachmentFetcher({ allowPrivate }), timeoutMs ? { timeoutMs } : {});

    it('replaces a path by base64 content, keeping given names and the content id', async () => {
      const inline = { content: Buffer.from('inline').toString('base64'), filename: 'a.txt' };
      const r = await stage(true)(
        email([
          inline,
          { content: '', path: `http://127.0.0.1:${files.port}/docs/report%20Q1.pdf` },
          {
            content: '',
            path: `http://127.0.0.1:${files.port}/plain`,
            filename: 'given.txt',
            content_type: 'text/x-given',
            content_id: 'logo',
          },
        ]),
        single,
      );
      if (!('email' in r)) throw new Error(r.refused.message);
      expect(r.email.attachments).toEqual([
        inline,
        {
          content: Buffer.from('%PDF-1.4 fake').toString('base64'),
          filename: 'report Q1.pdf',
          content_type: 'application/pdf',
        },
        {
          content: Buffer.from('hello').toString('base64'),
          filename: 'given.txt',
          content_type: 'text/x-given',
          content_id: 'logo',
        },
      ]);
      expect(r.email.attachments.some((a) => 'path' in a)).toBe(false);
    });

    it('refuses with invalid_attachment naming attachments[i].path, without connecting', async () => {
      const canaryHits = files.connections;
      const r = await stage(false)(
        email([{ content: 'aGk=' }, { content: '', path: `http://127.0.0.1:${files.port}/plain` }]),
        single,
      );
      expect(r).toEqual({
        refused: {
          name: 'invalid_attachment',
          message:
            'attachments[1].path: 127.0.0.1 is a private or reserved network address (127.0.0.0/8, Loopback, RFC 1122); only public hosts can be fetched',
        },
      });
      expect(files.connections).toBe(canaryHits);
    });

    it('reports per email, with the emails[i]. prefix, through the preparer of a batch', async () => {
      const r = await prepareWith([stage(false)]).prepare(
        'team',
        [{ index: 3, email: email([{ content: '', path: 'http://[::1]/x' }]) }],
        'batch',
      );
      expect(r).toEqual({
        emails: [],
        errors: [
          {
            index: 3,
            name: 'invalid_attachment',
            message:
              'emails[3].attachments[0].path: ::1 is a private or reserved network address (::1/128, Loopback Address, RFC 4291); only public hosts can be fetched',
          },
        ],
      });
    });

    it('counts fetched bytes against what inline attachments left of the 40 MB total', async () => {
      const almostFull = Buffer.alloc(LIMITS.attachmentsTotalBytes - 3).toString('base64');
      const r = await stage(true)(
        email([{ content: almostFull }, { content: '', path: `http://127.0.0.1:${files.port}/plain` }]),
        single,
      );
      expect(r).toMatchObject({
        refused: {
          message:
            'attachments[1].path: the content is larger than 3 bytes, what is left of the 40 MB limit on the attachments of an email',
        },
      });
    });

    it('bounds the fetches of one email by one timeout', async () => {
      const r = await stage(true, 200)(
        email([{ content: '', path: `http://127.0.0.1:${hang.port}/x` }]),
        single,
      );
      expect(r).toMatchObject({
        refused: { message: expect.stringMatching(/^attachments\[0\]\.path: timed out after 0\.2 s$/) },
      });
    });
  });
});
