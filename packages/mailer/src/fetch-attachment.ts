/**
 * Fetches the content of an attachment given as a `path` URL (Resend's `attachments[].path`), with an
 * SSRF guard (OWASP Server-Side Request Forgery Prevention Cheat Sheet):
 *
 * - only http and https; the host is read as every HTTP client reads it (WHATWG URL, so
 *   `http://2130706433` is 127.0.0.1);
 * - a name is resolved ONCE, and refused when ANY of its addresses is not a globally reachable
 *   destination (core's `forbiddenDestination`: the IANA special-purpose blocks; `allowPrivate`
 *   opens only loopback, private-use, shared, link-local and unique-local networks); the socket then connects to that vetted address (the request's `lookup` is
 *   pinned to it), so a DNS answer that changes between the check and the connect (rebinding)
 *   is never used. The Host header and TLS SNI / certificate check keep the original name;
 * - redirects are never followed (a 3xx is an error), there is one timeout for the whole fetch
 *   (DNS, connect, headers, body), and at most `maxBytes` are read.
 *
 * Uses node:http/https directly rather than `fetch`, whose DNS resolution cannot be controlled.
 * Every failure is a PetrelError `invalid_attachment` (422) whose message names the field.
 *
 * `createAttachmentFetcher` implements the AttachmentFetcher port of acceptance (packages/core):
 * the use-case decides what to fetch and within which limits, this file only does the I/O.
 */
import dns from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import { LIMITS, PetrelError } from '@petrel/contracts';
import {
  describeForbidden,
  forbiddenDestination,
  parseUrlHost,
  type AttachmentFetcher,
  type FetchedAttachment,
} from '@petrel/core';

export interface ConnectTarget {
  /** The vetted IP address the socket connects to. */
  address: string;
  family: 4 | 6;
  port: number;
  /** The host name of the URL (Host header, SNI), or the IP literal. */
  host: string;
}

export interface FetchAttachmentOptions {
  /**
   * WEBHOOK_ALLOW_PRIVATE_NETWORKS: allow loopback, private-use, shared, link-local and
   * unique-local destinations (development only); the other special-purpose blocks stay refused.
   */
  allowPrivate: boolean;
  /** Refuse a body larger than this many bytes (reading stops as soon as it is exceeded). */
  maxBytes: number;
  /** One deadline for the whole fetch: resolution, connection, headers and body. */
  timeoutMs: number;
  /** Resolves a host name to all its addresses; defaults to the system resolver (all: true). */
  lookup?: (host: string) => Promise<string[]>;
  /** The field named in error messages, e.g. `attachments[0].path`. Default `path`. */
  field?: string;
  /**
   * Called with the vetted address at the moment the socket is about to connect to it. Throwing
   * aborts the fetch with that error (tests use it to see where a connection would go without
   * opening one).
   */
  connect?: (target: ConnectTarget) => void;
}

/** The content, the response's media type, and the URL's last path segment as a file name. */
export type RemoteAttachment = FetchedAttachment;

/** Network policy of a fetcher; the per-fetch limits come from the caller (see AttachmentFetcher). */
export type AttachmentFetcherOptions = Pick<FetchAttachmentOptions, 'allowPrivate' | 'lookup' | 'connect'>;

/** The AttachmentFetcher port over `fetchRemoteAttachment`. */
export function createAttachmentFetcher(opts: AttachmentFetcherOptions): AttachmentFetcher {
  return {
    fetch: (url, limits) => fetchRemoteAttachment(url, { ...opts, ...limits }),
  };
}

const MB = 1024 * 1024;
const USER_AGENT = 'petrel-attachment-fetcher';
const UNSAFE_IN_NAME = /[\u0000-\u001f\u007f-\u009f\u2028\u2029/\\]/g;
const MEDIA_TYPE = /^[A-Za-z0-9!#$&^_.+-]+\/[A-Za-z0-9!#$&^_.+-]+[ \t]*(;[\x20-\x7e]*)?$/;

export async function fetchRemoteAttachment(
  url: string,
  opts: FetchAttachmentOptions,
): Promise<RemoteAttachment> {
  const field = opts.field ?? 'path';
  const fail = (reason: string) => new PetrelError('invalid_attachment', `${field}: ${reason}`);

  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw fail('must be an http or https URL');
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') throw fail('must be an http or https URL');
  const host = parseUrlHost(parsed);
  if (!host) throw fail('must be an http or https URL with a host');
  const secure = parsed.protocol === 'https:';
  const port = parsed.port ? Number(parsed.port) : secure ? 443 : 80;

  const policy = { allowPrivateNetworks: opts.allowPrivate };
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), opts.timeoutMs);
  const timedOut = () => fail(`timed out after ${formatSeconds(opts.timeoutMs)}`);
  try {
    // 1. Resolve once and vet every address.
    let target: { address: string; family: 4 | 6 };
    if (host.kind === 'ip') {
      const forbidden = forbiddenDestination(host.address, policy);
      if (forbidden) {
        throw fail(`${host.address} is ${describeForbidden(forbidden)}; only public hosts can be fetched`);
      }
      target = { address: host.address, family: host.family };
    } else {
      const addresses = await abortable(resolve(host.name, opts.lookup), controller.signal).catch(
        (err: unknown) => {
          throw controller.signal.aborted
            ? timedOut()
            : fail(`could not resolve ${host.name}${describe(err)}`);
        },
      );
      if (addresses.length === 0) throw fail(`could not resolve ${host.name}`);
      // The address is not echoed: it would map the deployment's internal DNS for the client.
      if (addresses.some((a) => forbiddenDestination(a, policy) !== undefined)) {
        throw fail(
          `${host.name} resolves to a private or reserved network address; only public hosts can be fetched`,
        );
      }
      const first = addresses.find((a) => isIP(a) !== 0);
      if (first === undefined) throw fail(`could not resolve ${host.name}`);
      target = { address: first, family: isIP(first) === 6 ? 6 : 4 };
    }
    const connectTarget: ConnectTarget = {
      ...target,
      port,
      host: host.kind === 'ip' ? host.address : host.name,
    };

    // 2. Connect to the vetted address only.
    if (host.kind === 'ip') {
      try {
        opts.connect?.(connectTarget);
      } catch (err) {
        throw errorFrom(err, fail);
      }
    }
    const pinned: LookupFunction = (_hostname, options, callback) => {
      try {
        opts.connect?.(connectTarget);
      } catch (err) {
        callback(err as NodeJS.ErrnoException, '', 0);
        return;
      }
      if (options.all) callback(null, [{ address: target.address, family: target.family }]);
      else callback(null, target.address, target.family);
    };

    // 3. GET, no redirects, bounded body.
    return await new Promise<RemoteAttachment>((resolvePromise, reject) => {
      let settled = false;
      const settle = (err: Error | undefined, value?: RemoteAttachment) => {
        if (settled) return;
        settled = true;
        if (err) {
          req.destroy();
          reject(err);
        } else resolvePromise(value!);
      };
      const request = secure ? https.request : http.request;
      const req = request({
        protocol: parsed.protocol,
        host: host.kind === 'ip' ? host.address : host.name,
        port,
        method: 'GET',
        path: `${parsed.pathname}${parsed.search}`,
        headers: {
          host: parsed.host,
          'user-agent': USER_AGENT,
          accept: '*/*',
          'accept-encoding': 'identity',
          connection: 'close',
        },
        ...(parsed.username || parsed.password
          ? { auth: `${decodeURIComponent(parsed.username)}:${decodeURIComponent(parsed.password)}` }
          : {}),
        agent: false,
        lookup: pinned,
        signal: controller.signal,
      });
      req.on('error', (err) => settle(controller.signal.aborted ? timedOut() : errorFrom(err, fail)));
      req.on('response', (res) => {
        const status = res.statusCode ?? 0;
        if (status >= 300 && status < 400) {
          res.resume();
          settle(fail(`the server answered ${status} (a redirect); redirects are not followed`));
          return;
        }
        if (status < 200 || status >= 300) {
          res.resume();
          settle(fail(`the server answered ${status}`));
          return;
        }
        const encoding = (res.headers['content-encoding'] ?? 'identity').trim().toLowerCase();
        if (encoding !== '' && encoding !== 'identity') {
          res.resume();
          settle(fail(`the server sent ${encoding}-encoded content; only unencoded content is accepted`));
          return;
        }
        const declared = Number(res.headers['content-length']);
        if (Number.isFinite(declared) && declared > opts.maxBytes) {
          settle(fail(tooLarge(opts.maxBytes)));
          return;
        }
        const chunks: Buffer[] = [];
        let received = 0;
        res.on('data', (chunk: Buffer) => {
          received += chunk.length;
          if (received > opts.maxBytes) {
            settle(fail(tooLarge(opts.maxBytes)));
            return;
          }
          chunks.push(chunk);
        });
        res.on('end', () => {
          const contentType = mediaType(res.headers['content-type']);
          const filename = filenameFrom(parsed);
          settle(undefined, {
            content: Buffer.concat(chunks, received),
            ...(contentType !== undefined ? { contentType } : {}),
            ...(filename !== undefined ? { filename } : {}),
          });
        });
        res.on('error', (err) => settle(controller.signal.aborted ? timedOut() : errorFrom(err, fail)));
        res.on('close', () => {
          if (!res.complete)
            settle(controller.signal.aborted ? timedOut() : fail('the connection closed early'));
        });
      });
      req.end();
    });
  } finally {
    clearTimeout(timer);
  }
}

async function resolve(name: string, lookup: FetchAttachmentOptions['lookup']): Promise<string[]> {
  if (lookup) return lookup(name);
  const found = await dns.promises.lookup(name, { all: true, verbatim: true });
  return found.map((a) => a.address);
}

function abortable<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(new Error('aborted'));
  return new Promise<T>((res, rej) => {
    const onAbort = () => rej(new Error('aborted'));
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (v) => {
        signal.removeEventListener('abort', onAbort);
        res(v);
      },
      (e: unknown) => {
        signal.removeEventListener('abort', onAbort);
        rej(e);
      },
    );
  });
}

/** A PetrelError (e.g. from the `connect` hook) passes through; other errors are summarised. */
function errorFrom(err: unknown, fail: (reason: string) => PetrelError): Error {
  if (err instanceof PetrelError) return err;
  return fail(`could not fetch the URL${describe(err)}`);
}

function describe(err: unknown): string {
  const code = (err as { code?: unknown } | undefined)?.code;
  return typeof code === 'string' && /^[A-Z0-9_]+$/.test(code) ? ` (${code})` : '';
}

function tooLarge(maxBytes: number): string {
  const limit = LIMITS.attachmentsTotalBytes;
  const limitText = `${formatBytes(limit)} limit on the attachments of an email`;
  if (maxBytes === limit) return `the content is larger than the ${limitText}`;
  if (maxBytes < limit)
    return `the content is larger than ${formatBytes(maxBytes)}, what is left of the ${limitText}`;
  return `the content is larger than ${formatBytes(maxBytes)}`;
}

function formatBytes(n: number): string {
  if (n >= MB) return `${Number.isInteger(n / MB) ? n / MB : (n / MB).toFixed(1)} MB`;
  return `${n} bytes`;
}

function formatSeconds(ms: number): string {
  return `${Math.round(ms / 100) / 10} s`;
}

/** A well-formed `type/subtype[; params]` in printable ASCII, or undefined. */
function mediaType(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  const t = value.trim();
  return t.length <= 255 && MEDIA_TYPE.test(t) ? t : undefined;
}

/** The last path segment, percent-decoded, stripped of control characters and separators. */
function filenameFrom(url: URL): string | undefined {
  const segment = url.pathname.slice(url.pathname.lastIndexOf('/') + 1);
  let name: string;
  try {
    name = decodeURIComponent(segment);
  } catch {
    name = segment;
  }
  name = name.replace(UNSAFE_IN_NAME, '').trim().slice(0, 255);
  return name === '' || name === '.' || name === '..' ? undefined : name;
}
