/**
 * Graceful shutdown: on SIGTERM/SIGINT run the registered closers in reverse order of
 * registration (stop accepting first, close Redis last), then exit 0. A second signal or the
 * force timeout exits at once.
 */
import { log } from './logger.js';

type Closer = { name: string; close: () => Promise<void> };

export class Lifecycle {
  private readonly closers: Closer[] = [];
  private stopping: Promise<void> | undefined;

  constructor(private readonly forceTimeoutMs = 30_000) {}

  /** Register something to close; closers run last-registered-first. */
  onStop(name: string, close: () => Promise<void>): void {
    this.closers.push({ name, close });
  }

  /** Close everything in order. Safe to call more than once. */
  stop(reason: string): Promise<void> {
    this.stopping ??= (async () => {
      log().info({ reason }, 'shutting down');
      for (const c of [...this.closers].reverse()) {
        try {
          await c.close();
          log().debug({ component: c.name }, 'closed');
        } catch (err) {
          log().error({ err, component: c.name }, 'close failed');
        }
      }
      log().info('shutdown complete');
    })();
    return this.stopping;
  }

  /** Install SIGTERM/SIGINT handlers that stop and exit. */
  installSignalHandlers(): void {
    const handler = (signal: string) => {
      if (this.stopping) {
        log().warn({ signal }, 'second signal: exiting now');
        process.exit(1);
      }
      const force = setTimeout(() => {
        log().error('graceful shutdown timed out; exiting');
        process.exit(1);
      }, this.forceTimeoutMs);
      force.unref();
      void this.stop(signal).then(() => process.exit(0));
    };
    process.on('SIGTERM', () => handler('SIGTERM'));
    process.on('SIGINT', () => handler('SIGINT'));
  }
}
