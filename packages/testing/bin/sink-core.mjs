// The one SMTP sink engine, shared by the in-process sink (src/smtp-sink.ts) and the sink that
// runs in its own process (bin/smtp-sink.mjs). Plain JavaScript on purpose: the child process
// must start with a bare `node`, from source under vitest as well as from dist, and this repo
// has no TypeScript loader. Types live in sink-core.d.mts next to this file.
//
// It owns the smtp-server configuration (no TLS, optional AUTH, large size limit) and the
// scripted replies (the plan). It must never parse MIME: callers decide how much a message
// costs them (full postal-mime parse in-process, a Message-ID scan in the child process).
import { SMTPServer } from 'smtp-server';

/** Largest message the sink accepts (base64-encoded 40 MB of attachments fit). */
export const SINK_MAX_MESSAGE_BYTES = 100 * 1024 * 1024;

/** How long stop() lets open sessions finish before it cuts them. */
const SINK_CLOSE_GRACE_MS = 100;

const DEFAULT_TEXT = {
  421: '4.3.2 Service not available, closing channel (scripted)',
  450: '4.2.1 Mailbox busy, try again later (scripted)',
  451: '4.3.0 Local error in processing, try again later (scripted)',
  452: '4.3.1 Insufficient system storage (scripted)',
  550: '5.1.1 Mailbox unavailable (scripted)',
  552: '5.3.4 Message size exceeds fixed limit (scripted)',
  554: '5.7.1 Transaction failed (scripted)',
};

/**
 * @param {number} code
 * @param {string | undefined} message
 */
function scriptedError(code, message) {
  const text =
    message ?? DEFAULT_TEXT[code] ?? `${code >= 500 ? 'Permanent' : 'Transient'} failure (scripted)`;
  return Object.assign(new Error(text), { responseCode: code });
}

/** @param {string} address */
function domainOf(address) {
  const at = address.lastIndexOf('@');
  return at === -1 ? '' : address.slice(at + 1);
}

/** @param {unknown} step */
function normalizeStep(step) {
  if (step === 'accept') return step;
  if (step && typeof step === 'object') {
    const s = /** @type {Record<string, unknown>} */ (step);
    if (
      ['connect', 'rcpt', 'data'].includes(String(s.at)) &&
      (typeof s.code === 'number' || s.stall === true)
    ) {
      return s;
    }
  }
  throw new TypeError(
    `Invalid sink plan step ${JSON.stringify(step)}: use 'accept' or { at: 'connect' | 'rcpt' | 'data', code } or { at, stall: true }`,
  );
}

/**
 * Scripted replies keyed by recipient address, recipient domain or '*', one step per attempt;
 * the last step repeats. An attempt is one RCPT TO for that recipient.
 *
 * @param {Record<string, unknown[]>} [plan]
 */
export function createPlanBook(plan = {}) {
  /** @type {Map<string, unknown[]>} */
  const steps = new Map();
  for (const [key, list] of Object.entries(plan)) {
    if (!Array.isArray(list) || list.length === 0)
      throw new TypeError(`Sink plan for ${key} must be a non-empty array`);
    steps.set(key.toLowerCase(), list.map(normalizeStep));
  }
  /** @type {Map<string, number>} */
  const counts = new Map();
  /** @type {{ address: string; attempt: number; step: unknown; time: number }[]} */
  const log = [];
  let refuse = { remaining: 0, code: 421, message: undefined, stall: false };

  return {
    log,
    /** @param {string} address */
    attemptsFor(address) {
      return counts.get(address.toLowerCase()) ?? 0;
    },
    /** Counts one attempt for the recipient and returns the step scripted for it. */
    /** @param {string} address */
    nextStep(address) {
      const key = address.toLowerCase();
      const attempt = (counts.get(key) ?? 0) + 1;
      counts.set(key, attempt);
      const list = steps.get(key) ?? steps.get(domainOf(key)) ?? steps.get('*');
      const step = list ? list[Math.min(attempt, list.length) - 1] : 'accept';
      log.push({ address: key, attempt, step, time: Date.now() });
      return step;
    },
    /** @param {number} n @param {{ code?: number; message?: string; stall?: boolean }} [reply] */
    rejectConnections(n, reply = {}) {
      refuse = { remaining: n, code: reply.code ?? 421, message: reply.message, stall: reply.stall === true };
    },
    /** Returns the refusal for the next connection, or undefined to greet it. */
    takeConnectionRefusal() {
      if (refuse.remaining <= 0) return undefined;
      refuse.remaining -= 1;
      return refuse;
    },
    reset() {
      counts.clear();
      log.length = 0;
      refuse = { remaining: 0, code: 421, message: undefined, stall: false };
    },
  };
}

/**
 * Quick Message-ID scan of the header block, without a MIME parse.
 *
 * @param {Buffer} raw
 */
export function extractMessageId(raw) {
  let end = raw.indexOf('\r\n\r\n');
  if (end === -1) end = raw.indexOf('\n\n');
  const head = raw.subarray(0, end === -1 ? Math.min(raw.length, 65536) : end).toString('latin1');
  const match = /^message-id:[ \t]*((?:.*)(?:\r?\n[ \t].*)*)/im.exec(head);
  return match?.[1]?.replace(/\r?\n[ \t]+/g, ' ').trim() ?? '';
}

const PATH_ARGUMENT = /^(?:MAIL FROM|RCPT TO):\s*<([^>]*)>/i;

/**
 * Records the address of every MAIL FROM and RCPT TO exactly as the client wrote it.
 * smtp-server's own envelope turns an A-label domain into a U-label (`xn--bcher-kva.example`
 * arrives as `bücher.example`), so it cannot tell which form was on the wire. The command
 * lines are read from smtp-server's debug log (`{ tnx: 'command', cid }, 'C:', line`), which
 * it writes before the command's handler runs; commands are handled one at a time.
 */
function createWireLog() {
  /** Per session: the address of the last MAIL FROM / RCPT TO line. */
  /** @type {Map<string, string>} */
  const lastPath = new Map();
  /** Per session: the transaction so far (accepted recipients only). */
  /** @type {Map<string, { from: string; to: string[] }>} */
  const transactions = new Map();
  const ignore = () => undefined;
  return {
    logger: {
      /** @param {{ tnx?: unknown; cid?: unknown }} entry @param {unknown} _label @param {unknown} line */
      debug(entry, _label, line) {
        if (entry?.tnx !== 'command' || typeof line !== 'string') return;
        const match = PATH_ARGUMENT.exec(line);
        if (match) lastPath.set(String(entry.cid), match[1] ?? '');
      },
      info: ignore,
      warn: ignore,
      error: ignore,
      trace: ignore,
      fatal: ignore,
    },
    /** @param {string} session */
    mailFrom(session) {
      transactions.set(session, { from: lastPath.get(session) ?? '', to: [] });
    },
    /** @param {string} session */
    rcptAccepted(session) {
      transactions.get(session)?.to.push(lastPath.get(session) ?? '');
    },
    /** @param {string} session */
    take(session) {
      return transactions.get(session) ?? { from: '', to: [] };
    },
    /** @param {string} session */
    forget(session) {
      lastPath.delete(session);
      transactions.delete(session);
    },
  };
}

/**
 * Starts an smtp-server on host:port (0 = any free port) that answers by the plan and hands
 * every accepted message to onMessage before it replies 250.
 *
 * @param {{
 *   port?: number;
 *   host?: string;
 *   plan?: Record<string, unknown[]>;
 *   replyDelayMs?: number;
 *   smtpUtf8?: boolean;
 *   recordWire?: boolean;
 *   tls?: { key: string | Buffer; cert: string | Buffer };
 *   onMessage: (
 *     raw: Buffer,
 *     envelope: { from: string; to: string[]; smtpUtf8: boolean; wire?: { from: string; to: string[] } },
 *   ) => unknown;
 * }} options
 */
export async function startSinkServer(options) {
  const book = createPlanBook(options.plan);
  /** Per connection: the DATA failure scripted for one of the transaction's recipients. */
  /** @type {Map<string, unknown>} */
  const dataSteps = new Map();
  /** @type {Set<import('node:net').Socket>} */
  const sockets = new Set();
  // off by default: a logger makes smtp-server build a log entry for every line it reads or writes
  const wire = options.recordWire ? createWireLog() : undefined;

  const server = new SMTPServer({
    name: 'sink.petrel.test',
    banner: 'Petrel test sink',
    logger: wire?.logger ?? false,
    // RFC 6531: announced by default, as smtp-server does; off to play a server without it
    hideSMTPUTF8: options.smtpUtf8 === false,
    // STARTTLS only for a sink given a certificate (an MX with TLS, good or bad certificate)
    ...(options.tls
      ? { key: options.tls.key, cert: options.tls.cert }
      : { disabledCommands: ['STARTTLS'], hideSTARTTLS: true }),
    authOptional: true,
    allowInsecureAuth: true,
    disableReverseLookup: true,
    size: SINK_MAX_MESSAGE_BYTES,
    closeTimeout: SINK_CLOSE_GRACE_MS,
    onAuth(auth, _session, callback) {
      callback(null, { user: auth.username ?? 'anonymous' });
    },
    onConnect(_session, callback) {
      const refusal = book.takeConnectionRefusal();
      if (!refusal) return callback();
      if (refusal.stall) return undefined;
      return callback(scriptedError(refusal.code, refusal.message));
    },
    onMailFrom(_address, session, callback) {
      dataSteps.delete(session.id);
      wire?.mailFrom(session.id);
      callback();
    },
    onRcptTo(address, session, callback) {
      const step = book.nextStep(address.address);
      if (step === 'accept') {
        wire?.rcptAccepted(session.id);
        return callback();
      }
      if (step.stall && step.at !== 'data') return undefined;
      if (step.at === 'data') {
        if (!dataSteps.has(session.id)) dataSteps.set(session.id, step);
        wire?.rcptAccepted(session.id);
        return callback();
      }
      // A recipient-keyed 'connect' step cannot act before the greeting (the recipient is not
      // known yet), so it refuses at RCPT with the scripted code (421 by default) and hangs up.
      return callback(scriptedError(step.at === 'connect' ? (step.code ?? 421) : step.code, step.message));
    },
    onData(stream, session, callback) {
      /** @type {Buffer[]} */
      const chunks = [];
      stream.on('data', (chunk) => chunks.push(chunk));
      stream.on('error', (err) => callback(err));
      stream.on('end', () => {
        const step = dataSteps.get(session.id);
        dataSteps.delete(session.id);
        if (stream.sizeExceeded)
          return callback(scriptedError(552, '5.3.4 Message exceeds the sink size limit'));
        if (step?.stall) return undefined;
        if (step) return callback(scriptedError(step.code, step.message));
        const onWire = wire?.take(session.id);
        const envelope = {
          from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
          to: session.envelope.rcptTo.map((rcpt) => rcpt.address),
          smtpUtf8: session.envelope.smtpUtf8 === true,
          // the client's address (a sending pool's source address) and whether STARTTLS was used
          peer: session.remoteAddress,
          secure: session.secure === true,
          ...(onWire && { wire: onWire }),
        };
        Promise.resolve()
          .then(() => options.onMessage(Buffer.concat(chunks), envelope))
          // a slow relay: the message is recorded, the 250 comes later (the duplicate window)
          .then(() =>
            options.replyDelayMs ? new Promise((r) => setTimeout(r, options.replyDelayMs)) : undefined,
          )
          .then(
            () => callback(null, 'OK: message accepted by the sink'),
            (err) =>
              callback(scriptedError(451, `4.3.0 Sink failed to record the message: ${err?.message ?? err}`)),
          );
        return undefined;
      });
    },
    onClose(session) {
      dataSteps.delete(session.id);
      wire?.forget(session.id);
    },
  });
  let connectionsAccepted = 0;
  server.server.on('connection', (socket) => {
    connectionsAccepted += 1;
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });
  server.on('error', () => {
    // Client-side resets are routine in fault tests; they must not crash the sink.
  });

  await new Promise((resolve, reject) => {
    server.server.once('error', reject);
    server.listen(options.port ?? 0, options.host ?? '127.0.0.1', () => {
      server.server.off('error', reject);
      resolve(undefined);
    });
  });
  const address = server.server.address();
  const port = typeof address === 'object' && address ? address.port : 0;

  let stopped;
  return {
    port,
    book,
    connections: () => sockets.size,
    connectionsAccepted: () => connectionsAccepted,
    stop() {
      stopped ??= new Promise((resolve) => {
        server.close(() => resolve(undefined));
        // Stalled sessions (scripted or not) would hold close() for its whole grace period.
        for (const socket of sockets) socket.destroy();
      });
      return stopped;
    },
  };
}
