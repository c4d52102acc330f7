/**
 * Sorts SMTP outcomes into a {@link SendResult}, where they happen: 2xx sent,
 * 4xx / timeouts / broken connections soft (retry), 5xx hard (never retry). The send processor
 * maps a hard fail to a bounce and an UnrecoverableError; it never looks at SMTP codes itself.
 *
 * Pure: takes nodemailer's error or info objects (or anything shaped like them) and never throws.
 */

import type { RejectedRecipient } from '@petrel/core';

/** A recipient refused while the message went to the others: the delivery port's own type. */
export type { RejectedRecipient };

/**
 * The SMTP step that failed, as nodemailer names it: `CONN` (connect or greeting), `EHLO`,
 * `AUTH …`, `MAIL FROM`, `RCPT TO`, `DATA`, or `API` (refused locally before talking to the
 * server). A hard fail at `CONN` or `MAIL FROM` is about the sender or the relay, not the
 * recipient: bounce the email, but do not suppress the address.
 */
export type FailedCommand = string;

/** The outcome of one SMTP attempt. */
export type SendResult =
  | {
      kind: 'sent';
      /** The reply code to the end of DATA (250). */
      code: number;
      /** The server's whole reply, e.g. `250 2.0.0 OK queued as ABC`. */
      response: string;
      /** Recipients refused while others were accepted; absent when all were accepted. */
      rejected?: RejectedRecipient[];
    }
  | {
      /** Retry later: 4xx, timeouts, broken connections, DNS, our own TLS/auth setup. */
      kind: 'soft_fail';
      /** The reply code, absent when no reply came (timeout, refused connection…). */
      code?: number;
      /** RFC 3463 code from the reply, e.g. `4.7.1`. */
      enhancedCode?: string;
      /** The server's "try again in N" hint, when the reply had one. */
      retryAfterMs?: number;
      command?: FailedCommand;
      detail: string;
      /**
       * Petrel held the message back itself before asking any server (every address of the
       * sending pool at its warm-up cap): the email waits `retryAfterMs` without spending an
       * attempt of its retry ladder.
       */
      deferred?: true;
    }
  | {
      /** Never retry: 5xx (the enhanced code's class decides when present). */
      kind: 'hard_fail';
      code: number;
      enhancedCode?: string;
      command?: FailedCommand;
      detail: string;
    };

/** Longest retry hint honoured; a server asking for more is waited for by the schedule. */
export const MAX_RETRY_HINT_MS = 24 * 60 * 60 * 1000;
/** The reply code reported for a permanent failure found before any reply (e.g. size limit). */
const LOCAL_PERMANENT_CODE = 550;
const LOCAL_TOO_BIG_CODE = 552;
const MAX_DETAIL = 500;

const REPLY_CODE = /^([2-5]\d\d)(?:[ -]|$)/;
/** Enhanced status code (RFC 3463) right after the reply code. */
const ENHANCED = /^[2-5]\d\d[ -]+([245])\.(\d{1,3})\.(\d{1,3})\b/;
const UNIT_MS: Readonly<Record<string, number>> = { s: 1000, m: 60_000, h: 3_600_000 };
/**
 * "try again in 30 seconds", "retry after 2 minutes", "try again in 5 min", "retry in 1h",
 * "greylisted for 300 seconds", "wait 60 s", "deferred for 10 minutes".
 */
const RETRY_HINT =
  /\b(?:(?:try|retry|send)(?:\s+(?:again|it|the\s+message|later))?\s+(?:in|after)|(?:greylisted|graylisted|deferred|delayed|blocked)\s+for|wait(?:\s+for)?)\s+(?:at\s+least\s+)?(\d+(?:\.\d+)?)\s*(s|secs?|seconds?|m|mins?|minutes?|h|hrs?|hours?)\b/i;
/** Errors with no SMTP reply that mean the message itself can never be sent. */
const PERMANENT_LOCAL_CODES: ReadonlySet<string> = new Set(['EENVELOPE', 'EMESSAGE']);
/**
 * Failures of our own session setup (credentials, TLS, proxy, config), whatever the reply code:
 * a 535 to AUTH says nothing about the recipient, so it must never bounce or suppress anyone.
 */
const SETUP_CODES: ReadonlySet<string> = new Set([
  'EAUTH',
  'ENOAUTH',
  'EOAUTH2',
  'ETLS',
  'EREQUIRETLS',
  'ECONFIG',
  'EPROXY',
]);

interface SmtpErrorLike {
  code?: unknown;
  originalCode?: unknown;
  responseCode?: unknown;
  response?: unknown;
  command?: unknown;
  message?: unknown;
  rejectedErrors?: unknown;
}

/** The reply code of a server response string, or undefined. */
export function replyCode(response: string): number | undefined {
  const m = REPLY_CODE.exec(response);
  return m ? Number(m[1]) : undefined;
}

/** The enhanced status code (`4.7.1`) right after the reply code, or undefined. */
export function enhancedCode(response: string): string | undefined {
  const m = ENHANCED.exec(response);
  return m ? `${m[1]}.${Number(m[2])}.${Number(m[3])}` : undefined;
}

/**
 * A "try again in N seconds/minutes/hours" hint in a reply, in milliseconds (capped at
 * {@link MAX_RETRY_HINT_MS}); undefined when the reply names no duration ("try again later").
 */
export function parseRetryHint(response: string): number | undefined {
  const m = RETRY_HINT.exec(response);
  if (!m) return undefined;
  const ms = Number(m[1]) * UNIT_MS[m[2]!.charAt(0).toLowerCase()]!;
  if (!Number.isFinite(ms) || ms <= 0) return undefined;
  return Math.min(Math.round(ms), MAX_RETRY_HINT_MS);
}

/** Whether a reply is permanent: the enhanced code's class when present, else the reply code's. */
function isPermanent(code: number, enhanced: string | undefined): boolean {
  if (enhanced !== undefined) return enhanced.charAt(0) === '5';
  // 503 is "bad sequence of commands": the session's state, not the message, was refused
  return code >= 500 && code !== 503;
}

function clip(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > MAX_DETAIL ? `${flat.slice(0, MAX_DETAIL - 1)}…` : flat;
}

/**
 * Classifies what nodemailer's `sendMail` rejected with. Never throws; an unknown error is a
 * soft fail, so the retry schedule (not a guess here) decides when to give up.
 */
export function classifySendError(err: unknown): SendResult {
  const result = classifyError(err);
  const command = typeof err === 'object' && err !== null ? (err as SmtpErrorLike).command : undefined;
  if (typeof command === 'string' && result.kind !== 'sent') result.command = command;
  return result;
}

function classifyError(err: unknown): SendResult {
  if (typeof err !== 'object' || err === null) {
    return { kind: 'soft_fail', detail: clip(`unexpected send error: ${String(err)}`) };
  }
  const e = err as SmtpErrorLike;
  const response = typeof e.response === 'string' ? e.response : undefined;
  const code =
    typeof e.responseCode === 'number' && e.responseCode >= 200 && e.responseCode < 600
      ? e.responseCode
      : response !== undefined
        ? replyCode(response)
        : undefined;
  const errCode = typeof e.code === 'string' ? e.code : undefined;
  const command = typeof e.command === 'string' ? e.command : undefined;
  const message = typeof e.message === 'string' ? e.message : 'send failed';
  const where = command !== undefined ? ` (${command})` : '';

  if (errCode !== undefined && SETUP_CODES.has(errCode)) {
    const soft: SendResult = { kind: 'soft_fail', detail: clip(`${errCode}: ${message}${where}`) };
    if (code !== undefined) soft.code = code;
    return soft;
  }

  if (code !== undefined && code >= 400) {
    const reply = response ?? String(code);
    const enhanced = enhancedCode(reply);
    const detail = clip(`${reply}${where}`);
    if (isPermanent(code, enhanced)) {
      return withEnhanced({ kind: 'hard_fail', code, detail }, enhanced);
    }
    const retryAfterMs = parseRetryHint(reply);
    const soft: SendResult = { kind: 'soft_fail', code, detail };
    if (retryAfterMs !== undefined) soft.retryAfterMs = retryAfterMs;
    return withEnhanced(soft, enhanced);
  }

  // No SMTP reply: the connection, the socket, DNS, TLS, a timeout, or a local refusal.
  const system = typeof e.originalCode === 'string' ? e.originalCode : undefined;
  const label = [errCode, system].filter((c) => c !== undefined).join('/');
  const detail = clip(`${label !== '' ? `${label}: ` : ''}${message}${where}`);
  if (errCode !== undefined && PERMANENT_LOCAL_CODES.has(errCode) && command === 'API') {
    // refused before talking to the server: no recipients, an invalid address, or over SIZE
    const tooBig = /larger than allowed/i.test(message);
    return { kind: 'hard_fail', code: tooBig ? LOCAL_TOO_BIG_CODE : LOCAL_PERMANENT_CODE, detail };
  }
  if (errCode === 'EMESSAGE' && /larger than allowed/i.test(message)) {
    return { kind: 'hard_fail', code: LOCAL_TOO_BIG_CODE, detail };
  }
  return { kind: 'soft_fail', detail };
}

function withEnhanced<T extends SendResult>(result: T, enhanced: string | undefined): T {
  if (enhanced !== undefined && result.kind !== 'sent') result.enhancedCode = enhanced;
  return result;
}

interface SentInfoLike {
  response?: unknown;
  rejected?: unknown;
  rejectedErrors?: unknown;
}

/** Classifies what nodemailer's `sendMail` resolved with (the server accepted the message). */
export function classifySendInfo(info: unknown): SendResult {
  const i = (typeof info === 'object' && info !== null ? info : {}) as SentInfoLike;
  const response = typeof i.response === 'string' ? i.response : '250';
  const result: SendResult = { kind: 'sent', code: replyCode(response) ?? 250, response };
  const rejected = rejectedRecipients(i);
  if (rejected.length > 0) result.rejected = rejected;
  return result;
}

function rejectedRecipients(i: SentInfoLike): RejectedRecipient[] {
  const out: RejectedRecipient[] = [];
  const errors = Array.isArray(i.rejectedErrors) ? (i.rejectedErrors as SmtpErrorLike[]) : [];
  const seen = new Set<string>();
  for (const e of errors) {
    const address = (e as { recipient?: unknown }).recipient;
    if (typeof address !== 'string') continue;
    seen.add(address);
    const response = typeof e.response === 'string' ? e.response : '';
    const code = typeof e.responseCode === 'number' ? e.responseCode : replyCode(response);
    const enhanced = enhancedCode(response);
    const r: RejectedRecipient = {
      address,
      permanent: code !== undefined && isPermanent(code, enhanced),
      detail: clip(response !== '' ? response : String(e.message ?? 'rejected')),
    };
    if (code !== undefined) r.code = code;
    if (enhanced !== undefined) r.enhancedCode = enhanced;
    out.push(r);
  }
  if (Array.isArray(i.rejected)) {
    for (const address of i.rejected) {
      if (typeof address === 'string' && !seen.has(address)) {
        out.push({ address, permanent: false, detail: 'rejected' });
      }
    }
  }
  return out;
}

/**
 * A refusal made here, before any command, because the next hop did not offer SMTPUTF8 in its
 * EHLO reply and the address has a UTF-8 local part (RFC 6531 forbids sending it without).
 * Reported as the reply an SMTPUTF8-aware server gives such an address: 553 with X.6.7,
 * "Non-ASCII addresses not permitted for that sender/recipient" (RFC 6531 section 3.5).
 */
const NEEDS_SMTPUTF8_CODE = 553;
const NEEDS_SMTPUTF8_ENHANCED = '5.6.7';

function needsSmtpUtf8Detail(role: 'sender' | 'recipient', address: string): string {
  return clip(`${role} ${address} needs SMTPUTF8, which the receiving server does not offer`);
}

/** One recipient left out of the envelope because the hop lacks SMTPUTF8; permanent. */
export function smtpUtf8Refusal(address: string): RejectedRecipient {
  return {
    address,
    code: NEEDS_SMTPUTF8_CODE,
    enhancedCode: NEEDS_SMTPUTF8_ENHANCED,
    permanent: true,
    detail: needsSmtpUtf8Detail('recipient', address),
  };
}

/**
 * The outcome when nothing can be sent over a hop without SMTPUTF8: the sender's address needs
 * it (`MAIL FROM`, the recipients are not at fault), or every recipient's does (`RCPT TO`).
 */
export function smtpUtf8Failure(sender: string | undefined, recipients: readonly string[]): SendResult {
  const detail =
    sender !== undefined
      ? needsSmtpUtf8Detail('sender', sender)
      : clip(recipients.map((a) => needsSmtpUtf8Detail('recipient', a)).join('; '));
  return {
    kind: 'hard_fail',
    code: NEEDS_SMTPUTF8_CODE,
    enhancedCode: NEEDS_SMTPUTF8_ENHANCED,
    command: sender !== undefined ? 'MAIL FROM' : 'RCPT TO',
    detail,
  };
}

/** A result with more rejected recipients: a sent result lists them, a failed one is kept as is. */
export function withRejected(result: SendResult, rejected: readonly RejectedRecipient[]): SendResult {
  if (result.kind !== 'sent' || rejected.length === 0) return result;
  return { ...result, rejected: [...(result.rejected ?? []), ...rejected] };
}
