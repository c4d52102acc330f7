// A small SMTP submission client that pipelines as far as RFC 2920 allows, as MTAs do: after the
// greeting, STARTTLS (RFC 3207) and AUTH PLAIN (RFC 4954), each message's MAIL FROM, RCPT TO and
// DATA leave in one write, and — since "the actual transfer of message content is explicitly
// allowed to be the first command in a group" (RFC 2920 section 3.1) — a message's content and
// final dot leave in the same write as the next message's envelope. One round trip per message
// (the 354 before the content) instead of nodemailer's two (it pipelines the envelope, then waits
// for the 250 after the dot before it starts the next one). Every reply is still read and
// checked, in order (RFC 2920 section 3.1: the client MUST check all statuses of a group).
// Messages are composed beforehand by nodemailer's stream transport (CRLF line endings), so the
// client's own CPU is the conversation alone.
import { connect } from 'node:net';
import { connect as tlsConnect } from 'node:tls';
import { createTransport } from 'nodemailer';

/** Raw messages (CRLF, dot-stuffed, ending in CRLF) and envelopes of the given mail objects. */
export async function composeAll(mails) {
  const composer = createTransport({ streamTransport: true, buffer: true, newline: 'windows' });
  const out = [];
  for (const mail of mails) {
    const info = await composer.sendMail(mail);
    let raw = info.message.toString('binary');
    if (!raw.endsWith('\r\n')) raw += '\r\n';
    // RFC 5321 section 4.5.2: a line that starts with a dot gets one more
    raw = raw.replace(/(^|\r\n)\./g, '$1..');
    out.push({ from: info.envelope.from, to: info.envelope.to, data: Buffer.from(raw, 'binary') });
  }
  return out;
}

/** One authenticated connection; `reply()` resolves the server's replies in order. */
class Connection {
  constructor(socket) {
    this.waiters = [];
    this.replies = [];
    this.attach(socket);
  }

  attach(socket) {
    this.socket = socket;
    let buffered = '';
    let lines = [];
    socket.setNoDelay(true);
    socket.on('data', (chunk) => {
      buffered += chunk.toString('binary');
      let end;
      while ((end = buffered.indexOf('\r\n')) !== -1) {
        const line = buffered.slice(0, end);
        buffered = buffered.slice(end + 2);
        lines.push(line);
        // RFC 5321 section 4.2.1: "250-" continues a multi-line reply, "250 " ends it
        if (line[3] === '-') continue;
        const reply = { code: Number(line.slice(0, 3)), text: lines.join('\n') };
        lines = [];
        const w = this.waiters.shift();
        if (w) w.resolve(reply);
        else this.replies.push(reply);
      }
    });
    socket.on('error', (err) => this.failAll(err));
    socket.on('close', () => this.failAll(new Error('SMTP connection closed')));
  }

  failAll(err) {
    this.closedWith = err;
    for (const w of this.waiters.splice(0)) w.reject(err);
  }

  /** Detaches the plain socket's reader before the TLS upgrade takes the socket over. */
  detach() {
    this.socket.removeAllListeners('data');
    this.socket.removeAllListeners('error');
    this.socket.removeAllListeners('close');
  }

  reply() {
    if (this.replies.length > 0) return Promise.resolve(this.replies.shift());
    if (this.closedWith) return Promise.reject(this.closedWith);
    return new Promise((resolve, reject) => this.waiters.push({ resolve, reject }));
  }

  async expect(code, what) {
    const r = await this.reply();
    if (r.code !== code) throw new Error(`SMTP ${what}: expected ${code}, got ${r.text}`);
    return r;
  }

  static async open({ host, port, user, pass }) {
    const plain = await new Promise((resolve, reject) => {
      const s = connect({ host, port }, () => resolve(s));
      s.once('error', reject);
    });
    const c = new Connection(plain);
    await c.expect(220, 'greeting');
    plain.write('EHLO bench.test\r\n');
    const ehlo = await c.expect(250, 'EHLO');
    if (!/[ -]PIPELINING\b/.test(ehlo.text)) throw new Error('the server does not offer PIPELINING');
    plain.write('STARTTLS\r\n');
    await c.expect(220, 'STARTTLS');
    c.detach();
    const secure = await new Promise((resolve, reject) => {
      const s = tlsConnect({ socket: plain, servername: 'localhost', rejectUnauthorized: false }, () =>
        resolve(s),
      );
      s.once('error', reject);
    });
    c.attach(secure);
    secure.write('EHLO bench.test\r\n');
    await c.expect(250, 'EHLO after STARTTLS');
    secure.write(`AUTH PLAIN ${Buffer.from(`\0${user}\0${pass}`).toString('base64')}\r\n`);
    await c.expect(235, 'AUTH');
    return c;
  }

  envelope(m) {
    return `MAIL FROM:<${m.from}>\r\n${m.to.map((t) => `RCPT TO:<${t}>\r\n`).join('')}DATA\r\n`;
  }

  /** Sends messages taken from `take()` until it returns undefined; `done(reply)` per 250. */
  async run(take, done) {
    let next = take();
    if (!next) return;
    this.socket.write(this.envelope(next));
    while (next) {
      const cur = next;
      await this.expect(250, 'MAIL FROM');
      for (let k = 0; k < cur.to.length; k++) await this.expect(250, 'RCPT TO');
      await this.expect(354, 'DATA');
      next = take();
      // the content, its final dot and the next envelope in one write (RFC 2920 section 3.1)
      this.socket.write(
        next
          ? Buffer.concat([cur.data, Buffer.from(`.\r\n${this.envelope(next)}`)])
          : Buffer.concat([cur.data, Buffer.from('.\r\n')]),
      );
      done(await this.expect(250, 'end of data'));
    }
  }

  async quit() {
    this.socket.write('QUIT\r\n');
    await this.reply().catch(() => undefined);
    this.socket.destroy();
  }
}

/**
 * Opens `connections` authenticated connections to `host:port` once; `send(messages)` submits the
 * composed messages over all of them (each connection takes the next message when it is ready)
 * and resolves when every one is answered 250; `close()` quits.
 */
export async function pipeliningClient({ host = '127.0.0.1', port, user, pass, connections }) {
  const conns = await Promise.all(
    Array.from({ length: connections }, () => Connection.open({ host, port, user, pass })),
  );
  return {
    async send(messages, onReply = () => {}) {
      let i = 0;
      const take = () => (i < messages.length ? messages[i++] : undefined);
      await Promise.all(conns.map((c) => c.run(take, onReply)));
    },
    close: () => Promise.all(conns.map((c) => c.quit())),
  };
}
