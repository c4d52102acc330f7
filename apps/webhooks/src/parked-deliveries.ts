/**
 * Queued deliveries waiting for a slot of their endpoint (endpoint-slots.ts), woken when one frees
 * instead of polling for it. A job whose endpoint is full is moved to delayed for at most its
 * longest park (`moveToDelayed`: no attempt is counted, no slot and no worker slot are held) and noted
 * here; each time a slot of that endpoint frees, the oldest job noted for it is promoted to wait
 * (`job.promote()`: one script call per wake-up, whatever the wait) and runs as soon as the worker
 * fetches it. A job that finds the endpoint full again (a first attempt took the slot meanwhile)
 * is parked again: every park follows a fetch, every wake-up a freed slot, so the Redis cost per
 * delivery is bounded by the design, not by how long the endpoint keeps the job waiting.
 *
 * The note is in this process's memory; the job's state is in Redis. If the process dies, its
 * parked jobs are still delayed jobs: BullMQ promotes each when its longest park runs out and any
 * dispatcher runs it then (at-least-once kept; never two runs at once, as only a fetched job
 * runs). A graceful close wakes them all at once (`wakeAll`).
 *
 * BullMQ does not route a job to the process that woke it: another dispatcher may fetch it (and
 * park it there, if its own slots are full), leaving this process's freed slot unused. So a
 * wake-up waits for a job of the endpoint to come in at most ARRIVAL_GRACE_MS; if none did, the
 * slot is offered to the next parked job. Any job of the endpoint that comes in answers the
 * oldest pending wake-up: it takes the slot or, finding it full, parks.
 */
import { log } from '@petrel/observability';
import type { EndpointSlots } from './endpoint-slots.js';

/** How long a wake-up's job may take to come back before the slot goes to the next parked job. */
const ARRIVAL_GRACE_MS = 1_000;
/**
 * A job is no longer woken this close to the end of its park: BullMQ promotes it then by itself,
 * another dispatcher may run it and, on a failure, delay it for its retry — a wake-up landing
 * after that would cut the retry's wait short.
 */
const WAKE_MARGIN_MS = 1_000;

/** What a parked job needs to be woken (a BullMQ Job). */
export interface ParkedJob {
  readonly id?: string | undefined;
  promote(): Promise<void>;
}

interface Parked {
  job: ParkedJob;
  /** Until when a wake-up still finds the job in the park this process put it in. */
  wakeBy: number;
}

export class ParkedDeliveries {
  /** Per endpoint, the jobs parked by this process by job id, oldest park first. */
  private readonly parked = new Map<string, Map<string, Parked>>();
  /** Per endpoint, the wake-ups whose job has not come in yet: their grace timers, oldest first. */
  private readonly waking = new Map<string, NodeJS.Timeout[]>();

  /** `parkMs`: how long a parked job is delayed for (its longest park). */
  constructor(
    private readonly slots: EndpointSlots,
    private readonly parkMs: number,
  ) {
    slots.whenFree((endpointId) => this.fill(endpointId));
  }

  /**
   * A job of the endpoint came in (fetched, about to ask for a slot): it is no longer parked here,
   * and it answers the oldest wake-up pending for the endpoint.
   */
  arrived(endpointId: string, jobId: string | undefined): void {
    const jobs = this.parked.get(endpointId);
    if (jobs && jobId !== undefined && jobs.delete(jobId) && jobs.size === 0) this.parked.delete(endpointId);
    const timers = this.waking.get(endpointId);
    if (!timers) return;
    clearTimeout(timers.shift());
    if (timers.length === 0) this.waking.delete(endpointId);
  }

  /**
   * Notes a job just moved to delayed until `sinceMs` + parkMs because its endpoint was full. A
   * slot freed between its `tryAcquire` and now found nothing to wake: it is offered now.
   */
  park(endpointId: string, job: ParkedJob, sinceMs: number): void {
    if (job.id === undefined) return; // BullMQ jobs have ids; without one it waits out its longest park
    let jobs = this.parked.get(endpointId);
    if (!jobs) this.parked.set(endpointId, (jobs = new Map()));
    const wakeBy = sinceMs + this.parkMs - Math.min(WAKE_MARGIN_MS, this.parkMs / 4);
    jobs.delete(job.id); // parked again: its newest park is the one a wake-up finds
    jobs.set(job.id, { job, wakeBy });
    this.fill(endpointId);
  }

  /** Jobs parked by this process (for tests). */
  count(): number {
    let n = 0;
    for (const jobs of this.parked.values()) n += jobs.size;
    return n;
  }

  /** Wakes every parked job: a closing process hands them over now, not after their longest park. */
  async wakeAll(): Promise<void> {
    const now = Date.now();
    const jobs = [...this.parked.values()].flatMap((m) => [...m.values()]).filter((p) => now < p.wakeBy);
    this.parked.clear();
    for (const timers of this.waking.values()) timers.forEach(clearTimeout);
    this.waking.clear();
    await Promise.all(jobs.map((p) => p.job.promote().catch(() => undefined)));
  }

  /** Wakes one parked job per free slot of the endpoint that no wake-up is pending for. */
  private fill(endpointId: string): void {
    let room = this.slots.free(endpointId) - (this.waking.get(endpointId)?.length ?? 0);
    for (; room > 0; room--) if (!this.wakeNext(endpointId)) return;
  }

  private wakeNext(endpointId: string): boolean {
    const jobs = this.parked.get(endpointId);
    if (!jobs) return false;
    const now = Date.now();
    let id: string | undefined;
    let job: ParkedJob | undefined;
    for (const [key, p] of jobs) {
      jobs.delete(key); // deleting the entry being visited is safe in a Map's iteration
      if (now < p.wakeBy) {
        id = key;
        job = p.job;
        break;
      }
    }
    if (jobs.size === 0) this.parked.delete(endpointId);
    if (id === undefined || !job) return false;
    let timers = this.waking.get(endpointId);
    if (!timers) this.waking.set(endpointId, (timers = []));
    const unanswered = (): void => {
      const list = this.waking.get(endpointId);
      const at = list?.indexOf(timer) ?? -1;
      if (at < 0) return; // answered meanwhile
      clearTimeout(timer);
      list!.splice(at, 1);
      if (list!.length === 0) this.waking.delete(endpointId);
      this.fill(endpointId);
    };
    const timer = setTimeout(unanswered, ARRIVAL_GRACE_MS);
    timer.unref();
    timers.push(timer);
    job.promote().catch((err: unknown) => {
      // not delayed any more (its longest park ran out and it was fetched, or it was removed), or
      // Redis did not answer: either way it comes back by itself; the slot goes to the next one
      log().debug({ err, jobId: id, endpointId }, 'parked webhook delivery not woken');
      unanswered();
    });
    return true;
  }
}
