/** What the SMTP servers of this app share, and what each hands back when listening. */
import type { Keys, RedisClient } from '@petrel/store';
import type { SmtpConfig } from './config.js';
import type { TlsMaterial } from './tls.js';

/** What every SMTP server of this app shares. */
export interface SmtpContext {
  config: SmtpConfig;
  redis: RedisClient;
  keys: Keys;
  tls: TlsMaterial;
  /** Name in greetings and EHLO replies. */
  hostname: string;
}

/** One listening server; `close` stops accepting and ends its sessions. */
export interface SmtpListener {
  /** e.g. `submission`, `submission-tls`. */
  name: string;
  port: number;
  close(): Promise<void>;
}
