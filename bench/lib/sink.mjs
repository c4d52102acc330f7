// The SMTP sink, run as its own process (fork) so its CPU never competes inside a worker's
// event loop. smtp-server without TLS, AUTH optional (and not offered), no reverse DNS. For each
// message it records the time the data ended (just before it answers 250) and the Message-ID;
// when the Message-ID's left part is a UUIDv7 (Petrel's email ids, and the baseline's), its first
// 48 bits are the acceptance millisecond, so acceptance-to-250 latency = receive − acceptance.
// The parent queries it over IPC: { id, cmd, args } → { id, result } (see sink-client.mjs).
//
// Realistic mode (`mode({ realistic: true, seed })`): the first attempt of each Message-ID is
// answered as `sinkDecision` (sink-decision.mjs) says — 250, a 421/451 temporary failure, a
// 550 5.1.1 permanent one, or a 250 after SLOW_MS — and every later attempt of it 250. Messages
// refused are not counted as received; `attempts()` lists every attempt with its answer.
import { SMTPServer } from 'smtp-server';
import { SLOW_MS, sinkDecision } from './sink-decision.mjs';

const ID_RE = /(?:^|\n)message-id:[ \t]*<([^>\r\n]*)>/i;
const V7_RE = /^([0-9a-f]{8})-([0-9a-f]{4})-7[0-9a-f]{3}-/i;

class Series {
  constructor() {
    this.a = new Float64Array(1 << 16);
    this.n = 0;
  }
  push(v) {
    if (this.n === this.a.length) {
      const b = new Float64Array(this.a.length * 2);
      b.set(this.a);
      this.a = b;
    }
    this.a[this.n++] = v;
  }
  clear() {
    this.n = 0;
  }
}

const recv = new Series(); // receive ms (epoch) per message
const lat = new Series(); // acceptance-to-250 ms per message (NaN when the id is not a v7 UUID)
const domains = []; // the Message-ID's domain per message (the sender's): summary({ domain }) keeps one stream
const ids = []; // the Message-ID per message ('' without one): received() lists which message came when
const seen = new Set();
let dup = 0;
let noId = 0;
let bytes = 0;
let connections = 0;
/** Realistic mode's seed (null: every message gets 250 at once). */
let seed = null;
/** Realistic mode: Message-ID → answers given, in order. */
const answered = new Map();
/** Realistic mode: Message-ID → when its first attempt was answered (epoch ms). */
const firstAnsweredAt = new Map();

/** The SMTP reply to a message's DATA: null for a 250 now, else { delayMs } or { code, message }. */
function answerFor(id) {
  if (seed === null || id === undefined) return null;
  const before = answered.get(id);
  const decision = before ? 'ok' : sinkDecision(id, seed);
  if (before) before.push(decision);
  else {
    answered.set(id, [decision]);
    firstAnsweredAt.set(id, Date.now());
  }
  switch (decision) {
    case 'temp421':
      return { code: 421, message: 'Service not available, try again later' };
    case 'temp451':
      return { code: 451, message: 'Requested action aborted: local error in processing' };
    case 'perm550':
      // smtp-server adds the enhanced code of 550: 5.1.1 (RFC 3463, bad destination mailbox)
      return { code: 550, message: 'Recipient address rejected: user unknown' };
    case 'slow':
      return { delayMs: SLOW_MS };
    default:
      return null;
  }
}

function acceptMsOf(id) {
  const m = V7_RE.exec(id);
  if (!m) return NaN;
  return parseInt(m[1] + m[2], 16);
}

const server = new SMTPServer({
  secure: false,
  authOptional: true,
  disabledCommands: ['STARTTLS', 'AUTH'],
  disableReverseLookup: true,
  logger: false,
  banner: 'petrel bench sink',
  size: 50 * 1024 * 1024,
  onConnect(_session, cb) {
    connections++;
    cb();
  },
  onData(stream, _session, cb) {
    let head = '';
    let id;
    let searching = true;
    stream.on('data', (chunk) => {
      bytes += chunk.length;
      if (!searching) return;
      head += chunk.toString('latin1');
      const m = ID_RE.exec(head);
      if (m) {
        id = m[1];
        searching = false;
        head = '';
      } else if (head.includes('\r\n\r\n') || head.length > 65_536) {
        searching = false;
        head = '';
      }
    });
    stream.on('end', () => {
      const answer = answerFor(id);
      if (answer && answer.code) {
        const err = new Error(answer.message);
        err.responseCode = answer.code;
        cb(err);
        return;
      }
      if (answer) setTimeout(() => received(id, cb), answer.delayMs);
      else received(id, cb);
    });
  },
});

/** Records a message answered 250 and answers. */
function received(id, cb) {
  const t = Date.now();
  recv.push(t);
  domains.push(id === undefined ? '' : id.slice(id.lastIndexOf('@') + 1));
  ids.push(id ?? '');
  if (id === undefined) {
    noId++;
    lat.push(NaN);
  } else {
    if (seen.has(id)) dup++;
    else seen.add(id);
    lat.push(t - acceptMsOf(id));
  }
  cb(null, 'OK: queued');
}

function pct(sorted, p) {
  if (sorted.length === 0) return null;
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[rank];
}

/**
 * Messages received in [from, to] (epoch ms; both optional), only those whose Message-ID domain
 * is `domain` when given: count, rates and latency.
 */
function summary({ from = -Infinity, to = Infinity, domain } = {}) {
  const times = [];
  const lats = [];
  for (let i = 0; i < recv.n; i++) {
    const t = recv.a[i];
    if (t < from || t > to) continue;
    if (domain !== undefined && domains[i] !== domain) continue;
    times.push(t);
    const l = lat.a[i];
    if (!Number.isNaN(l)) lats.push(l);
  }
  lats.sort((a, b) => a - b);
  const n = times.length;
  const first = n ? times[0] : null;
  const last = n ? times[n - 1] : null;
  // steady-state rate: between the 5th and the 95th percentile message (drops ramp-up and tail)
  let steady = null;
  if (n >= 100) {
    const i5 = Math.floor(n * 0.05);
    const i95 = Math.floor(n * 0.95);
    const dt = times[i95] - times[i5];
    if (dt > 0) steady = ((i95 - i5) / dt) * 1000;
  }
  return {
    count: n,
    first,
    last,
    rate: n > 1 && last > first ? ((n - 1) / (last - first)) * 1000 : null,
    steady_rate: steady,
    latency_ms: {
      n: lats.length,
      mean: lats.length ? Math.round(lats.reduce((a, b) => a + b, 0) / lats.length) : null,
      p50: pct(lats, 50),
      p90: pct(lats, 90),
      p99: pct(lats, 99),
      max: lats.length ? lats[lats.length - 1] : null,
    },
  };
}

const commands = {
  stats: () => ({
    count: recv.n,
    unique: seen.size,
    dup,
    noId,
    bytes,
    connections,
    last: recv.n ? recv.a[recv.n - 1] : null,
  }),
  summary,
  /** { realistic: boolean, seed }: realistic answers from now on (and what was answered forgotten). */
  mode: ({ realistic = false, seed: s = 'bench' } = {}) => {
    seed = realistic ? String(s) : null;
    answered.clear();
    firstAnsweredAt.clear();
    return true;
  },
  /** Realistic mode: every Message-ID with the answers its attempts got, in order. */
  attempts: () => Object.fromEntries(answered),
  /** Realistic mode: every Message-ID with the time its first attempt was answered (a slow one's: when its data ended). */
  firstAttempts: () => Object.fromEntries(firstAnsweredAt),
  /** Every message answered 250, in order: its Message-ID and receive ms (the tail's analysis). */
  received: () => ({ ids: ids.slice(), times: Array.from(recv.a.subarray(0, recv.n)) }),
  reset: () => {
    answered.clear();
    firstAnsweredAt.clear();
    recv.clear();
    lat.clear();
    domains.length = 0;
    ids.length = 0;
    seen.clear();
    dup = 0;
    noId = 0;
    bytes = 0;
    return true;
  },
};

process.on('message', (msg) => {
  const fn = commands[msg?.cmd];
  if (!fn) {
    process.send({ id: msg?.id, error: `unknown command ${msg?.cmd}` });
    return;
  }
  try {
    process.send({ id: msg.id, result: fn(msg.args) });
  } catch (err) {
    process.send({ id: msg.id, error: String(err?.stack ?? err) });
  }
});

// The bench went away: do not linger.
process.on('disconnect', () => process.exit(0));

server.on('error', (err) => process.stderr.write(`sink error: ${err.message}\n`));
server.listen(Number(process.env.SINK_PORT || 0), '127.0.0.1', () => {
  process.send({ ready: true, port: server.server.address().port });
});
