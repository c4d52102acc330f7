/**
 * Graceful shutdown: on SIGTERM/SIGINT run the registered closers in reverse order of
 * registration (stop accepting first, close Redis last), then exit 0. A second signal or the
 * force timeout exits at once.
 *
 * Each closer has its own deadline: one that never settles (a QUIT queued for a Redis node that
 * died in a failover, a job waiting on it) is logged by name and left behind, so the closers after
 * it — Redis last — still run.
 */
import { log } from './logger.js';

type Closer = { name: string; close: () => Promise<void> };

export class Lifecycle {
  private readonly closers: Closer[] = [];
  private stopping: Promise<void> | undefined;
  private readonly late: string[] = [];

  constructor(
    private readonly forceTimeoutMs = 30_000,
    // A closer may drain in-flight work (a send waiting on its SMTP socket) as long as the whole
    // shutdown may take; only one that outlives that is left behind.
    private readonly closeTimeoutMs = forceTimeoutMs,
  ) {}

  /** The closers that missed their deadline during stop(), by name. */
  get timedOut(): readonly string[] {
    return this.late;
  }

  /** Register something to close; closers run last-registered-first. */
  onStop(name: string, close: () => Promise<void>): void {
    this.closers.push({ name, close });
  }

  /** Close everything in order. Safe to call more than once. */
  stop(reason: string): Promise<void> {
    this.stopping ??= (async () => {
      log().info({ reason }, 'shutting down');
      for (const c of [...this.closers].reverse()) {
        let timer: NodeJS.Timeout | undefined;
        const deadline = new Promise<'late'>((resolve) => {
          timer = setTimeout(() => resolve('late'), this.closeTimeoutMs);
        });
        try {
          if ((await Promise.race([c.close(), deadline])) === 'late') {
            this.late.push(c.name);
            log().error({ component: c.name, timeoutMs: this.closeTimeoutMs }, 'close timed out; going on');
          } else log().debug({ component: c.name }, 'closed');
        } catch (err) {
          log().error({ err, component: c.name }, 'close failed');
        } finally {
          clearTimeout(timer);
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
