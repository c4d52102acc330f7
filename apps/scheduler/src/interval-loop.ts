/**
 * A background loop: run a round every `intervalMs` until stopped. A failing round is reported
 * to `onError` and the loop goes on (a background loop never dies silently, nor takes the
 * process down); rounds never overlap (a tick that finds one still running is skipped); `stop()`
 * waits for the running round, so shutdown never cuts a round in the middle.
 */
export interface IntervalLoop {
  stop(): Promise<void>;
}

export function startIntervalLoop(
  round: () => Promise<unknown>,
  intervalMs: number,
  onError: (err: unknown) => void,
): IntervalLoop {
  let running: Promise<void> | null = null;
  const timer = setInterval(() => {
    if (running) return;
    running = round()
      .then(
        () => undefined,
        (err: unknown) => onError(err),
      )
      .finally(() => {
        running = null;
      });
  }, intervalMs);
  timer.unref();
  return {
    async stop() {
      clearInterval(timer);
      await running;
    },
  };
}
